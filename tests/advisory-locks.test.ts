/**
 * Advisory locks between simulated processes: PGlite's one session keeps them per process
 * (simulations/db/advisory-locks.ts) and must answer as a real PostgreSQL 15 does with one
 * connection per process. The same scripts run on both back-ends through the engine's database
 * port; each step's answer is compared with what PostgreSQL gives.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { isParked, type ParkedQuery, type SimDatabase } from '../simulations/db/port';
import { AdvisoryLocks, callsAdvisory, rewriteAdvisory } from '../simulations/db/advisory-locks';
import { BackendPids, callsBackendPid, readsStatActivity, withBackendPid, withStatActivity } from '../simulations/db/backend-pid';
import { SIM_EPOCH_MS } from '../simulations/engine/sim-time';
import { openSimDb, postgresSimDbPerBlock } from './helpers/sim-db';

type Answer = unknown;

/** Run one statement of `pid`; its first row's first value, `'waits'` if it waits for a lock, or the error's SQLSTATE. */
async function step(db: SimDatabase, pid: string, sql: string, params: unknown[] = []): Promise<Answer | { waiting: ParkedQuery }> {
  try {
    const got = await db.query(pid, sql, params, SIM_EPOCH_MS);
    if (isParked(got)) {
      await db.settle?.();
      if (!got.settled()) return { waiting: got };
      return first(await got.result());
    }
    return first(got);
  } catch (err) {
    return { error: (err as { code?: string }).code };
  }
}

function first(res: { rows: Record<string, unknown>[] }): Answer {
  const row = res.rows[0];
  return row ? Object.values(row)[0] : undefined;
}

/** What a waiting statement ended with once settled, or `'still waiting'`. */
async function after(db: SimDatabase, w: ParkedQuery): Promise<Answer> {
  await db.settle?.();
  if (!w.settled()) return 'still waiting';
  try {
    return first(await w.result());
  } catch (err) {
    return { error: (err as { code?: string }).code };
  }
}

const waits = (a: unknown): a is { waiting: ParkedQuery } => typeof a === 'object' && a !== null && 'waiting' in a;

function scripts(db: () => SimDatabase) {
  beforeEach(async () => {
    for (const pid of ['a', 'b', 'c']) await db().drop(pid);
    await db().reset();
  });

  test('a session lock excludes another process: try answers false, a lock waits until the unlock', async () => {
    expect(await step(db(), 'a', 'SELECT pg_advisory_lock(hashtext($1))', ['order-1042'])).toBe('');
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(hashtext($1)) AS got', ['order-1042'])).toBe(false);
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(hashtext($1)) AS got', ['order-1043'])).toBe(true);
    const w = await step(db(), 'b', 'SELECT pg_advisory_lock(hashtext($1))', ['order-1042']);
    expect(waits(w)).toBe(true);
    expect(await after(db(), (w as { waiting: ParkedQuery }).waiting)).toBe('still waiting');
    expect(await step(db(), 'a', 'SELECT pg_advisory_unlock(hashtext($1))', ['order-1042'])).toBe(true);
    expect(await after(db(), (w as { waiting: ParkedQuery }).waiting)).toBe('');
    expect(await step(db(), 'a', 'SELECT pg_try_advisory_lock(hashtext($1))', ['order-1042'])).toBe(false);
    expect(await step(db(), 'a', 'SELECT pg_advisory_unlock(hashtext($1))', ['order-1042'])).toBe(false);
  });

  test("a lock taken inside the learner's own functions is the calling process's, whoever created them", async () => {
    await step(db(), 'a', "CREATE OR REPLACE FUNCTION take_lock(k text) RETURNS void LANGUAGE sql AS 'SELECT pg_advisory_lock(hashtext(k))'");
    await step(db(), 'a', 'CREATE OR REPLACE FUNCTION try_lock(k text) RETURNS boolean LANGUAGE plpgsql AS $fn$ BEGIN RETURN pg_try_advisory_lock(hashtext(k)); END $fn$');
    await step(db(), 'a', "DO $$ BEGIN CREATE OR REPLACE FUNCTION let_go(k text) RETURNS boolean LANGUAGE sql AS 'SELECT pg_advisory_unlock(hashtext(k))'; END $$");
    expect(await step(db(), 'b', 'SELECT take_lock($1)', ['order-1042'])).toBe('');
    expect(await step(db(), 'a', 'SELECT try_lock($1) AS got', ['order-1042'])).toBe(false);
    expect(await step(db(), 'a', 'SELECT pg_try_advisory_lock(hashtext($1)) AS got', ['order-1042'])).toBe(false);
    const w = await step(db(), 'c', 'SELECT take_lock($1)', ['order-1042']);
    expect(waits(w)).toBe(true);
    expect(await step(db(), 'b', 'SELECT let_go($1) AS released', ['order-1042'])).toBe(true);
    expect(await after(db(), (w as { waiting: ParkedQuery }).waiting)).toBe('');
    expect(await step(db(), 'b', 'SELECT try_lock($1) AS got', ['order-1042'])).toBe(false);
  });

  test('session locks count: locked twice, unlocked twice', async () => {
    await step(db(), 'a', 'SELECT pg_advisory_lock(7)');
    await step(db(), 'a', 'SELECT pg_advisory_lock(7)');
    expect(await step(db(), 'a', 'SELECT pg_advisory_unlock(7)')).toBe(true);
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(7)')).toBe(false);
    expect(await step(db(), 'a', 'SELECT pg_advisory_unlock(7)')).toBe(true);
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(7)')).toBe(true);
  });

  test('a dropped connection (a crash) frees its locks and wakes the waiter', async () => {
    await step(db(), 'a', 'SELECT pg_advisory_lock(7)');
    const w = await step(db(), 'b', 'SELECT pg_advisory_lock(7)');
    expect(waits(w)).toBe(true);
    await db().drop('a');
    expect(await after(db(), (w as { waiting: ParkedQuery }).waiting)).toBe('');
    expect(await step(db(), 'c', 'SELECT pg_try_advisory_lock(7)')).toBe(false);
  });

  test('a transaction lock ends with its transaction, and meets session locks of others', async () => {
    await step(db(), 'a', 'BEGIN');
    expect(await step(db(), 'a', 'SELECT pg_try_advisory_xact_lock(4242)')).toBe(true);
    await step(db(), 'a', 'COMMIT');
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(4242)')).toBe(true);
    await step(db(), 'a', 'BEGIN');
    expect(await step(db(), 'a', 'SELECT pg_try_advisory_xact_lock(4242)')).toBe(false);
    expect(await step(db(), 'a', 'SELECT 1')).toBe(1);
    await step(db(), 'a', 'ROLLBACK');
    // A transaction lock outside a transaction lasts for its statement only.
    expect(await step(db(), 'c', 'SELECT pg_try_advisory_xact_lock(99)')).toBe(true);
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(99)')).toBe(true);
  });

  test('a session lock survives the rollback of the transaction that took it', async () => {
    await step(db(), 'a', 'BEGIN');
    expect(await step(db(), 'a', 'SELECT pg_try_advisory_lock(5)')).toBe(true);
    await step(db(), 'a', 'ROLLBACK');
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(5)')).toBe(false);
  });

  test('shared locks share; an exclusive one waits for them; two-int keys are their own space', async () => {
    expect(await step(db(), 'a', 'SELECT pg_try_advisory_lock_shared(3)')).toBe(true);
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock_shared(3)')).toBe(true);
    expect(await step(db(), 'c', 'SELECT pg_try_advisory_lock(3)')).toBe(false);
    expect(await step(db(), 'a', 'SELECT pg_try_advisory_lock(1, 2)')).toBe(true);
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(1, 2)')).toBe(false);
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(2, 1)')).toBe(true);
    expect(await step(db(), 'c', 'SELECT pg_catalog.pg_try_advisory_lock(4294967298)')).toBe(true);
  });

  test('a lock taken inside a transaction while another holds it waits, and the transaction goes on afterwards', async () => {
    await step(db(), 'b', 'SELECT pg_advisory_lock(11)');
    await step(db(), 'b', 'SELECT pg_advisory_unlock(11)');
    await step(db(), 'a', 'SELECT pg_advisory_lock(12)');
    await step(db(), 'b', 'BEGIN');
    await step(db(), 'b', 'INSERT INTO operations (op_key, state, lease_until) VALUES ($1, $2, now())', ['k', 'running']);
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_xact_lock(12)')).toBe(false);
    expect(await step(db(), 'b', 'SELECT count(*)::int FROM operations')).toBe(1);
    await step(db(), 'b', 'COMMIT');
  });

  test('pg_backend_pid() differs per process: a lock keyed on it excludes nobody', async () => {
    const a = await step(db(), 'a', 'SELECT pg_backend_pid()');
    const b = await step(db(), 'b', 'SELECT pg_catalog.pg_backend_pid() AS pid');
    expect(typeof a).toBe('number');
    expect(b).not.toBe(a);
    expect(await step(db(), 'a', 'SELECT pg_backend_pid() = $1::int', [a])).toBe(true);
    expect(await step(db(), 'a', 'SELECT pg_advisory_lock(pg_backend_pid())')).toBe('');
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock(pg_backend_pid())')).toBe(true);
    expect(await step(db(), 'b', 'SELECT pg_try_advisory_lock($1::bigint)', [a])).toBe(false);
  });

  test('two processes each waiting for the other: one of them fails with a deadlock, the other goes on once it lets go', async () => {
    await step(db(), 'a', 'SELECT pg_advisory_lock(1)');
    await step(db(), 'b', 'SELECT pg_advisory_lock(2)');
    const wa = await step(db(), 'a', 'SELECT pg_advisory_lock(2)');
    if (!waits(wa)) throw new Error(`a should wait for b's lock, got ${JSON.stringify(wa)}`);
    const wb = await step(db(), 'b', 'SELECT pg_advisory_lock(1)');
    // PostgreSQL looks for a deadlock once a wait has lasted deadlock_timeout (1 s): poll for it.
    const ended = () => !waits(wb) || wb.waiting.settled() || wa.waiting.settled();
    for (let i = 0; i < 600 && !ended(); i++) {
      await db().settle?.();
      if (!ended()) await new Promise((r) => setTimeout(r, 50));
    }
    const outcomeA = wa.waiting.settled() ? await after(db(), wa.waiting) : 'still waiting';
    const outcomeB = waits(wb) ? await after(db(), wb.waiting) : wb;
    const deadlock = { error: '40P01' };
    // Which one PostgreSQL's check picks depends on timing; exactly one fails, the other waits on.
    const [loser, winner, winnerWait] = JSON.stringify(outcomeA) === JSON.stringify(deadlock) ? ['a', 'b', wb] : ['b', 'a', wa];
    expect([outcomeA, outcomeB].filter((o) => JSON.stringify(o) === JSON.stringify(deadlock))).toHaveLength(1);
    expect([outcomeA, outcomeB]).toContain('still waiting');
    await step(db(), loser, 'SELECT pg_advisory_unlock_all()');
    expect(waits(winnerWait)).toBe(true);
    expect(await after(db(), (winnerWait as { waiting: ParkedQuery }).waiting), `${winner} goes on`).toBe('');
  }, 60_000);
}

describe('PGlite: advisory locks per process', () => {
  let lite: Awaited<ReturnType<typeof openSimDb>>;
  beforeAll(async () => {
    lite = await openSimDb();
  });
  afterAll(() => lite?.close());
  scripts(() => lite.db);
});

describe('PostgreSQL 15: the same scripts, one connection per process', () => {
  const server = postgresSimDbPerBlock(`eo_advisory_${process.pid}`);
  scripts(server);
});

describe('the rewrite', () => {
  test('every advisory-lock call is made as the process, other text untouched', () => {
    const sql = `SELECT pg_try_advisory_lock(hashtext($1)) AS got, pg_catalog.pg_advisory_unlock_all(), PG_ADVISORY_XACT_LOCK (1, 2), my_pg_advisory_lock(3)`;
    expect(rewriteAdvisory(sql, "w'1")).toBe(
      `SELECT sim.eo_pg_try_advisory_lock('w''1', hashtext($1)) AS got, sim.eo_pg_advisory_unlock_all('w''1'), sim.eo_pg_advisory_xact_lock('w''1', 1, 2), my_pg_advisory_lock(3)`,
    );
    expect(callsAdvisory('SELECT 1')).toBe(false);
    expect(callsAdvisory('SELECT my_pg_advisory_lock(3)')).toBe(false);
  });

  test('the ledger frees transaction locks at the end and everything at a drop', () => {
    const l = new AdvisoryLocks();
    l.apply('a', ['sim.advisory|pg_advisory_xact_lock|b:1', 'sim.advisory|pg_advisory_lock|b:2', 'unrelated notice']);
    expect(l.conflicts('b', 'b:1', false)).toBe(true);
    l.endTransaction('a');
    expect(l.conflicts('b', 'b:1', false)).toBe(false);
    expect(l.conflicts('b', 'b:2', false)).toBe(true);
    expect(l.conflicts('a', 'b:2', false)).toBe(false);
    l.drop('a');
    expect(l.empty).toBe(true);
  });
});

describe('pg_backend_pid() per process', () => {
  test('each call is answered with the number of the calling process, other text untouched', () => {
    expect(callsBackendPid('SELECT pg_advisory_lock(pg_backend_pid())')).toBe(true);
    expect(callsBackendPid(`SELECT 'my_pg_backend_pid'`)).toBe(false);
    expect(withBackendPid('SELECT pg_catalog.pg_backend_pid(), PG_BACKEND_PID ( )', 4102)).toBe('SELECT (4102)::integer, (4102)::integer');
    expect(withBackendPid('SELECT sim.pg_backend_pid()', 4102)).toBe('SELECT sim.pg_backend_pid()');
  });

  test("inet_client_port() is the connection's own too (PGlite answers NULL): one port per backend", () => {
    expect(callsBackendPid('SELECT inet_client_port()')).toBe(true);
    const [a, b] = [withBackendPid('SELECT inet_client_port() AS p', 4101), withBackendPid('SELECT inet_client_port() AS p', 4102)];
    expect(a).toMatch(/^SELECT \(\d{5}\)::integer AS p$/);
    expect(a).not.toBe(b);
  });

  test('numbers are handed out in the order processes ask, and again after a clear', () => {
    const pids = new BackendPids();
    expect([pids.of('relay-2'), pids.of('relay-1'), pids.of('relay-2')]).toEqual([4101, 4102, 4101]);
    pids.clear();
    expect(pids.of('relay-1')).toBe(4101);
  });
});

describe('pg_stat_activity per connection', () => {
  test('a read of it reads the simulated connections, under its own name or the alias given; its columns are left alone', () => {
    expect(readsStatActivity('SELECT backend_start FROM pg_stat_activity WHERE pid = 1')).toBe(true);
    expect(readsStatActivity('SELECT pg_stat_activity.pid')).toBe(false);
    expect(withStatActivity('SELECT pg_stat_activity.backend_start FROM pg_stat_activity WHERE pid = 1')).toBe(
      'SELECT pg_stat_activity.backend_start FROM sim.stat_activity AS pg_stat_activity WHERE pid = 1',
    );
    expect(withStatActivity('SELECT a.pid FROM pg_catalog.pg_stat_activity a JOIN x ON true')).toBe('SELECT a.pid FROM sim.stat_activity a JOIN x ON true');
    expect(withStatActivity('SELECT count(*) FROM PG_STAT_ACTIVITY AS s')).toBe('SELECT count(*) FROM sim.stat_activity AS s');
  });

  test('each process finds a row of its own connection, started on the virtual clock; a crashed one reconnects as a new backend', async () => {
    const { db, close } = await openSimDb();
    try {
      const own = async (pid: string, at: number) => {
        const got = await db.query(pid, 'SELECT pid, backend_start::text AS started, client_port FROM pg_stat_activity WHERE pid = pg_backend_pid()', [], at);
        if (isParked(got)) throw new Error('parked');
        return got.rows;
      };
      const [a] = await own('worker-1', SIM_EPOCH_MS);
      const [b] = await own('worker-2', SIM_EPOCH_MS + 5_000);
      expect(a).toMatchObject({ started: '2026-01-05 09:00:00+00' });
      expect(b).toMatchObject({ started: '2026-01-05 09:00:05+00' });
      expect(a!.pid).not.toBe(b!.pid);
      expect(a!.client_port).not.toBe(b!.client_port);
      // Asked again later, the same connection: the same start.
      expect(await own('worker-1', SIM_EPOCH_MS + 9_000)).toEqual([a]);
      await db.drop('worker-1');
      const [again] = await own('worker-1', SIM_EPOCH_MS + 60_000);
      expect(again).toMatchObject({ started: '2026-01-05 09:01:00+00' });
      expect(again!.pid).not.toBe(a!.pid);
      // Both connections are listed, and nothing of the host's clock shows.
      const all = await db.query('worker-2', 'SELECT count(*)::int AS n, max(query_start)::text AS q FROM pg_stat_activity', [], SIM_EPOCH_MS + 61_000);
      expect(isParked(all) ? null : all.rows[0]).toEqual({ n: 2, q: '2026-01-05 09:01:01+00' });
      // The asking connection runs a query; another one waiting on a provider is idle, or idle in its open transaction.
      const states = async () => {
        const got = await db.query('worker-2', 'SELECT string_agg(state, \', \' ORDER BY pid) AS s FROM pg_stat_activity', [], SIM_EPOCH_MS + 62_000);
        return isParked(got) ? null : got.rows[0]?.s;
      };
      expect(await states()).toBe('active, idle');
      await db.query('worker-1', 'BEGIN', [], SIM_EPOCH_MS + 62_000);
      await db.query('worker-1', 'COMMIT', [], SIM_EPOCH_MS + 62_000);
      expect(await states()).toBe('active, idle');
    } finally {
      await close();
    }
  });
});
