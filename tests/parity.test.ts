/**
 * Parity: every scenario gives the same verdicts on PGlite and on a real PostgreSQL 15 server with
 * one connection per process — and, where no transaction is opened, the same trace hash. Plus what only a real server has:
 * row locks that block, shown in the trace, and SKIP LOCKED that really skips.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Engine, type WorldSpec } from '../simulations/engine/scheduler';
import { PostgresSimDatabase } from '../simulations/db/postgres';
import { drawFaults, runScenario } from '../simulations/run/run';
import { LESSONS } from '../simulations/lessons/index';
import type { PgliteSimDatabase } from '../simulations/db/pglite';
import { openSimDb, replayHint, throwawayDatabase } from './helpers/sim-db';

let lite: Awaited<ReturnType<typeof openSimDb>>;
let server: PostgresSimDatabase;
let database: Awaited<ReturnType<typeof throwawayDatabase>>;

beforeAll(async () => {
  database = await throwawayDatabase(`eo_parity_${process.pid}`);
  server = await PostgresSimDatabase.open(database.url);
  lite = await openSimDb();
});

afterAll(async () => {
  await server?.close();
  await lite?.close();
  await database?.drop();
});

const SEEDS = [1, 2, 3, 4];

describe.each(LESSONS.map((s) => [s.id, s] as const))('%s', (_id, scenario) => {
  test.each(['starter', 'solution'] as const)('%s: same verdicts and trace on PGlite and PostgreSQL 15', async (variant) => {
    for (const seed of SEEDS) {
      const faults = seed === 1 ? scenario.demo.faults : drawFaults(scenario, seed);
      const req = { scenario, code: scenario.variants[variant].code, variant, seed, faults };
      const a = await runScenario(lite.db as PgliteSimDatabase, req);
      const b = await runScenario(server, req);
      expect(b.invariants.map((i) => [i.id, i.held]), replayHint(a)).toEqual(a.invariants.map((i) => [i.id, i.held]));
      // Without explicit transactions both back-ends offer the same choices at every step, so the
      // traces are identical; with them, PGlite serializes transactions and the server does not.
      if (!a.trace.some((e) => e.type === 'db' && /→ postgres: BEGIN/.test(e.text))) {
        expect(b.traceHash, replayHint(a)).toBe(a.traceHash);
      }
    }
  });
});

function world(processes: WorldSpec['processes']): WorldSpec {
  return { processes, messages: [], visibilityTimeoutMs: 30_000, maxReceives: 5, horizonMs: 60_000 };
}

const SETUP = `INSERT INTO outbox (topic, payload) VALUES ('order-placed', '{"orderId":1}'), ('order-placed', '{"orderId":2}')`;

test('on a real server a row lock blocks the second transaction, and the trace says who it waits for', async () => {
  await server.reset();
  await server.exec(SETUP);
  const got: Record<string, number[]> = {};
  const relay = (id: string, lock: string) => ({
    id,
    async main(env: import('../simulations/engine/types').Env) {
      const c = await env.db.connect();
      await c.query('BEGIN');
      const { rows } = await c.query<{ id: number }>(`SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1 ${lock}`);
      got[id] = rows.map((r) => r.id);
      await c.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
      await c.query('COMMIT');
      c.release();
    },
  });
  // Choices [0, 1, …]: relay-a begins, then relay-b begins, so both transactions are open at once.
  const out = await new Engine(world([relay('relay-a', 'FOR UPDATE'), relay('relay-b', 'FOR UPDATE')]), server, { seed: 1, faults: [], choices: [0, 1, 0, 1] }).run();
  expect(out.ending).toBe('finished');
  expect(out.trace.some((e) => /waits for a lock held by relay-/.test(e.text)), out.trace.map((e) => e.text).join('\n')).toBe(true);
  // The waiter re-reads after the holder commits: FOR UPDATE re-checks the WHERE, so no row is taken twice.
  expect(got['relay-a'].concat(got['relay-b']).filter((id) => id === 1).length).toBeLessThanOrEqual(1);
});

test('on a real server SKIP LOCKED splits the rows between two open transactions', async () => {
  await server.reset();
  await server.exec(SETUP);
  const got: Record<string, number[]> = {};
  const relay = (id: string) => ({
    id,
    async main(env: import('../simulations/engine/types').Env) {
      const c = await env.db.connect();
      await c.query('BEGIN');
      const { rows } = await c.query<{ id: number }>('SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED');
      got[id] = rows.map((r) => r.id);
      await c.query('COMMIT');
      c.release();
    },
  });
  const out = await new Engine(world([relay('relay-a'), relay('relay-b')]), server, { seed: 1, faults: [], choices: [0, 1, 0, 1] }).run();
  expect(out.trace.some((e) => /waits for a lock/.test(e.text))).toBe(false);
  expect([...got['relay-a'], ...got['relay-b']].sort()).toEqual([1, 2]);
});

test('a crash drops the connection: the server rolls back and releases its locks', async () => {
  await server.reset();
  await server.exec(SETUP);
  const out = await new Engine(
    world([
      {
        id: 'holder',
        async main(env) {
          const c = await env.db.connect();
          await c.query('BEGIN');
          await c.query(`UPDATE outbox SET published_at = now() WHERE id = 1`);
          await c.query('COMMIT');
        },
      },
    ]),
    server,
    { seed: 1, faults: [{ kind: 'crash', process: 'holder', after: 'db', nth: 2 }] },
  ).run();
  expect(out.trace.map((e) => e.type)).toContain('rollback');
  expect(await server.inspect('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NOT NULL')).toEqual([{ n: 0 }]);
});

describe('relay-concurrency: what only a real server shows', () => {
  const scenario = LESSONS.find((s) => s.id === 'relay-concurrency')!;
  // A transaction, but no FOR UPDATE: correct-looking, and wrong as soon as transactions overlap.
  const txWithoutLocks = `import type { Env } from 'effectively-once';
export async function relayOnce(env: Env) {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const { rows } = await c.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await c.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    await c.query('COMMIT');
    return rows;
  } finally {
    c.release();
  }
}`;

  test('the starter publishes rows twice on the server', async () => {
    const r = await runScenario(server, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
    expect(r.invariants.find((i) => i.id === 'each-row-once')!.held, replayHint(r)).toBe(false);
  });

  test('a transaction without FOR UPDATE duplicates on the server; PGlite (transactions serialized) hides the duplicate, and the lock check names it on both', async () => {
    const broke = (r: Awaited<ReturnType<typeof runScenario>>, id: string) => r.invariants.some((i) => i.id === id && !i.held);
    let onServer = 0;
    let onPglite = 0;
    let lockCheck = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const req = { scenario, code: txWithoutLocks, variant: 'tx-without-locks', seed, faults: [] };
      const remote = await runScenario(server, req);
      const local = await runScenario(lite.db as PgliteSimDatabase, req);
      if (broke(remote, 'each-row-once')) onServer++;
      if (broke(local, 'each-row-once')) onPglite++;
      if (broke(remote, 'locks-what-it-publishes') && broke(local, 'locks-what-it-publishes')) lockCheck++;
      expect(local.verdict).toBe('violated');
    }
    expect(onServer).toBeGreaterThan(0);
    expect(onPglite).toBe(0);
    expect(lockCheck).toBe(20);
  });
});
