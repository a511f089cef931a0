/**
 * A statement's rowCount, as node-postgres gives it (the command tag's count): the same on both
 * back-ends through the engine's database port, and handed to the code through env.db.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { isParked, type SimDatabase, type StatementResult } from '../simulations/db/port';
import { SIM_EPOCH_MS } from '../simulations/engine/sim-time';
import { runScenario } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { openSimDb, postgresSimDbPerBlock, replayHint, simDbPerFile } from './helpers/sim-db';

const T0 = SIM_EPOCH_MS;

async function run(db: SimDatabase, sql: string, params: unknown[] = []): Promise<StatementResult> {
  const got = await db.query('a', sql, params, T0);
  if (isParked(got)) throw new Error(`${sql} waited for a lock`);
  return got;
}

function counts(db: () => SimDatabase) {
  beforeEach(async () => {
    await db().drop('a');
    await db().reset();
  });

  test('INSERT, UPDATE and DELETE count the rows they changed, RETURNING or not; SELECT the rows it returned; BEGIN nothing', async () => {
    expect((await run(db(), 'BEGIN')).rowCount).toBeNull();
    expect((await run(db(), "INSERT INTO operations (op_key, state, lease_until) VALUES ('a', 'running', now()), ('b', 'running', now())")).rowCount).toBe(2);
    expect((await run(db(), "UPDATE operations SET state = 'done' WHERE op_key = 'a'")).rowCount).toBe(1);
    expect((await run(db(), "UPDATE operations SET state = 'done' WHERE op_key = 'zzz'")).rowCount).toBe(0);
    expect((await run(db(), "UPDATE operations SET state = 'done' RETURNING op_key")).rowCount).toBe(2);
    expect((await run(db(), 'SELECT op_key FROM operations')).rowCount).toBe(2);
    expect((await run(db(), "INSERT INTO operations (op_key, state, lease_until) VALUES ('a', 'running', now()) ON CONFLICT DO NOTHING")).rowCount).toBe(0);
    expect((await run(db(), "DELETE FROM operations WHERE op_key = 'b'")).rowCount).toBe(1);
    expect((await run(db(), 'COMMIT')).rowCount).toBeNull();
  });
}

describe('PGlite', () => {
  let lite: Awaited<ReturnType<typeof openSimDb>>;
  beforeAll(async () => {
    lite = await openSimDb();
  });
  afterAll(() => lite?.close());
  counts(() => lite.db);
});

describe('PostgreSQL 15', () => {
  counts(postgresSimDbPerBlock(`eo_rowcount_${process.pid}`));
});

describe('through env.db', () => {
  const sim = simDbPerFile();
  test('a claim that sends only when its UPDATE took one row (rowCount) sends the receipt once', async () => {
    const scenario = lessonById('receipt-redelivery');
    const code = readFileSync(new URL('./judge/receipt-redelivery/right-claim-by-rowcount.ts', import.meta.url), 'utf8');
    const r = await runScenario(sim.db, { scenario, code, variant: 'rowcount', seed: 1, faults: [{ kind: 'duplicate-delivery', message: 'm1' }] });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.ledger.emails.length, replayHint(r)).toBe(1);
  });
});
