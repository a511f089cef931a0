/**
 * The progress file (components/course/progress-file.ts): what an export holds and reads back,
 * why a file is refused, and the merge rules — nothing here is lost, a lesson done on either
 * device is done, the answer and prediction that count most are kept, the code here wins; replace
 * takes exactly the file. The schemas' own cases sit beside them (progress-schema.ts).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SCENARIO_CATALOG } from '../simulations/lessons/catalog';
import { answeredOnOwn, lessonDone, type Progress } from '../components/course/progress';
import { parseProgress } from '../components/course/progress-schema';
import {
  FILE_FORMAT,
  MAX_FILE_BYTES,
  buildProgressFile,
  codeConflicts,
  holdings,
  mergeInto,
  mergeProgress,
  readProgressFile,
  replaceWith,
  type Saved,
} from '../components/course/progress-file';
import { isLargeCode, codeSize, formatBytes, LARGE_CODE_CHARS, LARGE_CODE_LINES } from '../components/lab/saved-code';

const [A, B, C] = SCENARIO_CATALOG.map((s) => s.id as string);
const D1 = '0123456789abcdef';
const D2 = 'fedcba9876543210';
const empty = (): Progress => ({ version: 1, scenarios: {}, quizzes: {} });

describe('schemas: each bad part dropped and named, the rest kept', () => {
  test.each([
    ['heldCode: 5', { [A!]: { visited: true, heldCode: 5 } }, `scenarios.${A}.heldCode`, { [A!]: { visited: true } }],
    ['a predicted.choice that is an object', { [A!]: { passed: true, predicted: { choice: { x: 1 } } } }, `scenarios.${A}.predicted`, { [A!]: { passed: true } }],
    ['a lesson entry that is a string', { [A!]: 'done', [B!]: { visited: true } }, `scenarios.${A}`, { [B!]: { visited: true } }],
    ['an unknown lesson id', { 'no-such-lesson': { visited: true }, [B!]: { visited: true } }, 'scenarios.no-such-lesson', { [B!]: { visited: true } }],
    ['a digest that is not one', { [A!]: { cleanCode: ['<script>'], explored: true } }, `scenarios.${A}.cleanCode`, { [A!]: { explored: true } }],
    ['a negative count', { [A!]: { broke: { digest: D1, violations: -1, runs: 200 }, visited: true } }, `scenarios.${A}.broke`, { [A!]: { visited: true } }],
  ])('%s', (_, scenarios, path, kept) => {
    const { progress, dropped } = parseProgress({ version: 1, scenarios, quizzes: { q1: { choice: 'a', correct: true } } });
    expect(dropped.map((d) => d.path)).toEqual([path]);
    expect(progress.scenarios).toEqual(kept);
    expect(progress.quizzes).toEqual({ q1: { choice: 'a', correct: true } });
  });

  test('"sorting": 5, a quiz record of the wrong shape, a key that reaches the prototype', () => {
    const stored = JSON.parse('{"version":1,"scenarios":{"__proto__":{"visited":true}},"quizzes":{"q1":{"choice":"a","correct":"yes"},"__proto__":{"choice":"a","correct":true},"q2":{"choice":"b","correct":false}},"sorting":5}');
    const { progress, dropped } = parseProgress(stored);
    expect(dropped.map((d) => d.path).sort()).toEqual(['quizzes.__proto__', 'quizzes.q1', 'scenarios.__proto__', 'sorting']);
    expect(progress.quizzes).toEqual({ q2: { choice: 'b', correct: false } });
    expect(Object.getPrototypeOf(progress.quizzes)).toBe(Object.prototype);
    expect(progress.sorting).toBeUndefined();
  });

  test('the whole record is dropped only when it is not one: not an object, another version', () => {
    for (const value of [5, 'x', [], { version: 2, scenarios: { [A!]: { visited: true } } }]) {
      const { progress, dropped } = parseProgress(value);
      expect(progress).toEqual(empty());
      expect(dropped).toHaveLength(1);
    }
    expect(parseProgress(null).dropped).toEqual([]);
  });

  test('unknown fields are left out silently; over-long digest lists keep the latest eight', () => {
    const held = Array.from({ length: 12 }, (_, i) => i.toString(16).padStart(16, '0'));
    const { progress, dropped } = parseProgress({ version: 1, scenarios: { [A!]: { visited: true, future: 1, heldCode: held } }, quizzes: {}, extra: true });
    expect(dropped).toEqual([]);
    expect(progress.scenarios[A!]).toEqual({ visited: true, heldCode: held.slice(-8) });
  });
});

describe('saved code size', () => {
  test('large code is recognised by characters or by lines, and sized for the offer', () => {
    expect(isLargeCode('x'.repeat(LARGE_CODE_CHARS))).toBe(false);
    expect(isLargeCode('x'.repeat(LARGE_CODE_CHARS + 1))).toBe(true);
    expect(isLargeCode('\n'.repeat(LARGE_CODE_LINES - 1))).toBe(false);
    expect(isLargeCode('\n'.repeat(LARGE_CODE_LINES))).toBe(true);
    expect(codeSize('a\nb\né')).toEqual({ bytes: 6, lines: 3 });
    expect(formatBytes(2_345_678)).toBe('2.3 MB');
    expect(formatBytes(740_400)).toBe('740 KB');
    expect(formatBytes(512)).toBe('512 bytes');
  });
});

const here: Saved = {
  progress: {
    version: 1,
    scenarios: {
      [A!]: { visited: true, passed: true, heldCode: [D1], predicted: { choice: '1' } },
      [B!]: { visited: true, passed: true, explored: true, heldCode: [D1], cleanCode: [D1] },
    },
    quizzes: { q1: { choice: 'a', correct: true, revealed: true }, q2: { choice: 'b', correct: true } },
    sorting: { choices: {}, correct: 5, total: 8 },
  },
  code: { [A!]: '// here A', [B!]: '// here B' },
};
const file: Saved = {
  progress: {
    version: 1,
    scenarios: {
      [A!]: { visited: true, passed: true, explored: true, heldCode: [D2], cleanCode: [D2], predicted: { choice: '2', actual: '2' } },
      [C!]: { visited: true },
    },
    quizzes: { q1: { choice: 'a', correct: true }, q2: { choice: 'c', correct: false }, q3: { choice: 'd', correct: false } },
    sorting: { choices: {}, correct: 4, total: 8 },
  },
  code: { [A!]: '// file A', [C!]: '// file C' },
};

describe('merge and replace', () => {
  test('merge: lessons on either side, the best answer and prediction, the better sorting, the code here kept', () => {
    const merged = mergeInto(here, file);
    expect(merged.progress.scenarios[A!]).toEqual({
      visited: true,
      passed: true,
      explored: true,
      heldCode: [D2, D1],
      cleanCode: [D2],
      predicted: { choice: '2', actual: '2' },
    });
    expect(lessonDone(merged.progress.scenarios[A!])).toBe(true);
    expect(merged.progress.scenarios[B!]).toEqual(here.progress.scenarios[B!]);
    expect(merged.progress.scenarios[C!]).toEqual({ visited: true });
    expect(merged.progress.quizzes).toEqual({ q1: { choice: 'a', correct: true }, q2: { choice: 'b', correct: true }, q3: { choice: 'd', correct: false } });
    expect(merged.progress.sorting?.correct).toBe(5);
    expect(merged.code).toEqual({ [A!]: '// here A', [B!]: '// here B', [C!]: '// file C' });
    expect(codeConflicts(here, file)).toEqual([A]);
    expect(Object.keys(merged.progress.scenarios)).toEqual([A, B, C]);
  });

  test('replace: exactly the file, no code for lessons the file has none for', () => {
    expect(replaceWith(file)).toEqual(file);
  });

  test('what a file holds, in counts', () => {
    expect(holdings(file)).toEqual({ lessonsDone: 1, lessonsStarted: 1, predictions: 1, answers: 3, answersRight: 1, sorting: true, code: 2 });
  });
});

describe('merge rules hold for any two valid progress records', () => {
  const digest = fc.stringMatching(/^[0-9a-f]{16}$/);
  const ids = SCENARIO_CATALOG.map((s) => s.id as string);
  const anyProgress = fc.jsonValue({ maxDepth: 1 }).chain(() =>
    fc.record({
      version: fc.constant(1 as const),
      scenarios: fc.dictionary(
        fc.constantFrom(...ids),
        fc.record(
          {
            visited: fc.boolean(),
            passed: fc.boolean(),
            explored: fc.boolean(),
            sawOutcome: fc.boolean(),
            heldCode: fc.array(digest, { maxLength: 8 }),
            cleanCode: fc.array(digest, { maxLength: 8 }),
            predicted: fc.record({ choice: fc.constantFrom('1', '2'), actual: fc.constantFrom('1', '2'), afterSeeing: fc.boolean() }, { requiredKeys: ['choice'] }),
          },
          { requiredKeys: [] },
        ),
      ),
      quizzes: fc.dictionary(fc.constantFrom('q1', 'q2', 'q3'), fc.record({ choice: fc.constantFrom('a', 'b'), correct: fc.boolean(), revealed: fc.boolean() }, { requiredKeys: ['choice', 'correct'] })),
    }),
  ) as fc.Arbitrary<Progress>;

  test('nothing here is lost, and the result is valid and idempotent', () => {
    fc.assert(
      fc.property(anyProgress, anyProgress, (a, b) => {
        const m = mergeProgress(a, b);
        for (const [id, s] of Object.entries(a.scenarios)) {
          const merged = m.scenarios[id]!;
          for (const flag of ['visited', 'passed', 'explored', 'sawOutcome'] as const) if (s[flag]) expect(merged[flag]).toBe(true);
          for (const d of s.heldCode ?? []) expect(merged.heldCode).toContain(d);
          for (const d of s.cleanCode ?? []) expect(merged.cleanCode).toContain(d);
          if (lessonDone(s) || lessonDone(b.scenarios[id])) expect(lessonDone(merged)).toBe(true);
          if (s.predicted) expect(merged.predicted).toBeDefined();
        }
        for (const [q, r] of Object.entries(a.quizzes)) {
          if (r.correct) expect(m.quizzes[q]!.correct).toBe(true);
          if (answeredOnOwn(r)) expect(answeredOnOwn(m.quizzes[q])).toBe(true);
        }
        const reparsed = parseProgress(JSON.parse(JSON.stringify(m)));
        expect(reparsed.dropped).toEqual([]);
        expect(mergeProgress(m, b)).toEqual(m);
        expect(mergeProgress(a, empty())).toEqual(mergeProgress(empty(), a));
        expect(mergeProgress(mergeProgress(a, empty()), empty())).toEqual(mergeProgress(a, empty()));
      }),
      { numRuns: 300 },
    );
  });
});

describe('reading a file', () => {
  test('an export reads back as it was', () => {
    const text = JSON.stringify(buildProgressFile(here, new Date('2026-12-05T06:00:00Z')));
    const r = readProgressFile(text);
    expect(r).toEqual({ ok: true, saved: here, exportedAt: '2026-12-05T06:00:00.000Z', dropped: [] });
  });

  test.each([
    ['not JSON', 'nope {', /not JSON/],
    ['empty', '', /empty/],
    ['foreign JSON', '{"name":"x"}', /not an Effectively Once progress file/],
    ['an array', '[1,2]', /not an Effectively Once progress file/],
    ['a newer format', JSON.stringify({ format: FILE_FORMAT, version: 3, progress: {} }), /newer version.*format version 3/],
    ['a version that is not a number', JSON.stringify({ format: FILE_FORMAT, version: '1', progress: {} }), /format version is missing/],
    ['no progress', JSON.stringify({ format: FILE_FORMAT, version: 1 }), /holds no progress record/],
    ['too large', ' '.repeat(MAX_FILE_BYTES + 1), /at most 5\.0 MB/],
  ])('refused: %s', (_, text, reason) => {
    const r = readProgressFile(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(reason);
  });

  test('bad parts of a file are named and the rest read', () => {
    const r = readProgressFile(
      JSON.stringify({
        format: FILE_FORMAT,
        version: 1,
        progress: { version: 1, scenarios: { [A!]: { visited: true, heldCode: 5 } }, quizzes: {} },
        code: { [A!]: 5, [B!]: '// ok', elsewhere: '// x', [C!]: 'x'.repeat(1_000_001) },
      }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.dropped.map((d) => d.path)).toEqual([`scenarios.${A}.heldCode`, `code.${A}`, 'code.elsewhere', `code.${C}`]);
    expect(r.saved).toEqual({ progress: { version: 1, scenarios: { [A!]: { visited: true } }, quizzes: {} }, code: { [B!]: '// ok' } });
    expect(r.exportedAt).toBeNull();
  });
});
