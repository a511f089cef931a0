/**
 * Which refused statements are a lost race (the code may rely on them and try again later) and
 * which are the code's own failure (a run with one is never clean): simulations/engine/statement-failure.ts
 * and the lessons' isCodeFailure.
 */
import { describe, expect, test } from 'vitest';
import { isConflict, markFailedStatement } from '../simulations/engine/statement-failure';
import { isCodeFailure } from '../simulations/lessons/kit/scenario';

const refused = (code: string) => markFailedStatement(Object.assign(new Error(`refused ${code}`), { code }));

describe('a refused statement', () => {
  test('is a lost race when another session got there first: unique, exclusion, serialization, deadlock, NOWAIT', () => {
    for (const code of ['23505', '23P01', '40001', '40P01', '55P03']) {
      expect(isConflict(refused(code)), code).toBe(true);
      expect(isCodeFailure(refused(code)), code).toBe(false);
    }
  });

  test("is the code's own failure when the statement is wrong whoever else runs: a CHECK, a NOT NULL, a foreign key, a syntax error, a missing column", () => {
    for (const code of ['23514', '23502', '23503', '42601', '42703']) {
      expect(isConflict(refused(code)), code).toBe(false);
      expect(isCodeFailure(refused(code)), code).toBe(true);
    }
  });
});
