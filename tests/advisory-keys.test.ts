/**
 * Which advisory locks were a process's own (simulations/lessons/kit/advisory-keys.ts): the keys
 * are evaluated by the database from each call's arguments and parameters, and a lock excludes
 * nobody when every transaction of its process asked for that one key while every other process
 * did the same with a key of its own.
 */
import { describe, expect, test } from 'vitest';
import { advisoryLockKeys } from '../simulations/lessons/kit/advisory-keys';
import type { TraceEvent } from '../simulations/engine/types';
import { simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();

let i = 0;
function db(actor: string, sql: string, params: unknown[] = []): TraceEvent {
  return { i: i++, t: 0, step: 0, actor, type: 'db', text: sql, data: { sql, params, rows: [] } } as TraceEvent;
}
/** One transaction of `actor` taking the lock `sql` with `params`; returns its events and the lock's. */
function tx(actor: string, sql: string, params: unknown[] = []): { events: TraceEvent[]; lock: TraceEvent } {
  const lock = db(actor, sql, params);
  return { events: [db(actor, 'BEGIN'), lock, db(actor, 'SELECT id FROM outbox WHERE published_at IS NULL'), db(actor, 'COMMIT')], lock };
}

const XACT = 'SELECT pg_advisory_xact_lock($1)';

describe('a lock is its process\'s own', () => {
  test('when each relay takes, in every pass, a key of its own (a number hashed in JavaScript from its name)', async () => {
    const a1 = tx('relay-1', XACT, [1111]);
    const b1 = tx('relay-2', XACT, [2222]);
    const a2 = tx('relay-1', XACT, [1111]);
    const b2 = tx('relay-2', XACT, [2222]);
    const keys = await advisoryLockKeys([...a1.events, ...b1.events, ...a2.events, ...b2.events], sim.db);
    expect([a1.lock, a2.lock, b1.lock, b2.lock].map((e) => keys.ownOnly(e))).toEqual([true, true, true, true]);
  });

  test('when the keys come from hashtext of the process\'s own name, worked out by the database', async () => {
    const sql = "SELECT pg_try_advisory_xact_lock(hashtext('relay/' || $1)) AS got";
    const a1 = tx('relay-1', sql, ['relay-1']);
    const b1 = tx('relay-2', sql, ['relay-2']);
    const a2 = tx('relay-1', sql, ['relay-1']);
    const b2 = tx('relay-2', sql, ['relay-2']);
    const keys = await advisoryLockKeys([...a1.events, ...b1.events, ...a2.events, ...b2.events], sim.db);
    expect(keys.ownOnly(a1.lock)).toBe(true);
  });
});

describe('a lock is not its process\'s own', () => {
  test('when both relays take the same key', async () => {
    const a1 = tx('relay-1', XACT, [4242]);
    const b1 = tx('relay-2', 'SELECT pg_advisory_xact_lock(4242)');
    const a2 = tx('relay-1', XACT, [4242]);
    const b2 = tx('relay-2', 'SELECT pg_advisory_xact_lock(4242)');
    const keys = await advisoryLockKeys([...a1.events, ...b1.events, ...a2.events, ...b2.events], sim.db);
    expect([a1.lock, b1.lock].map((e) => keys.ownOnly(e))).toEqual([false, false]);
  });

  test('when keys vary with the work (one per row), even if the two relays never took the same one', async () => {
    const sql = 'SELECT pg_try_advisory_xact_lock(7001, $1::int) AS got';
    const a1 = tx('relay-1', sql, [1]);
    const b1 = tx('relay-2', sql, [3]);
    const a2 = tx('relay-1', sql, [2]);
    const b2 = tx('relay-2', sql, [4]);
    const keys = await advisoryLockKeys([...a1.events, ...b1.events, ...a2.events, ...b2.events], sim.db);
    expect([a1.lock, a2.lock, b1.lock, b2.lock].map((e) => keys.ownOnly(e))).toEqual([false, false, false, false]);
  });

  test('when a process took its key in one transaction only, or no other process took any lock', async () => {
    const a1 = tx('relay-1', XACT, [1111]);
    const b1 = tx('relay-2', XACT, [2222]);
    const b2 = tx('relay-2', XACT, [2222]);
    const once = await advisoryLockKeys([...a1.events, ...b1.events, ...b2.events], sim.db);
    expect(once.ownOnly(a1.lock)).toBe(false);
    const a2 = tx('relay-1', XACT, [1111]);
    const alone = await advisoryLockKeys([...a1.events, ...a2.events, db('relay-2', 'SELECT 1')], sim.db);
    expect(alone.ownOnly(a1.lock)).toBe(false);
  });

  test('when the key names a column of the rows the statement reads (the database cannot work it out alone)', async () => {
    const sql = 'SELECT id, pg_try_advisory_xact_lock(id) AS got FROM outbox WHERE published_at IS NULL';
    const a1 = tx('relay-1', sql);
    const b1 = tx('relay-2', sql);
    const a2 = tx('relay-1', sql);
    const b2 = tx('relay-2', sql);
    const keys = await advisoryLockKeys([...a1.events, ...b1.events, ...a2.events, ...b2.events], sim.db);
    expect(keys.ownOnly(a1.lock)).toBe(false);
  });
});

describe('a worker that handled one message', () => {
  const receive = (target: string, messageId: string): TraceEvent => ({ i: i++, t: 0, step: 0, actor: 'queue', type: 'receive', target, text: '', data: { messageId } }) as TraceEvent;
  const KEYED = 'SELECT pg_advisory_xact_lock(hashtext($1))';

  test('took the same key in its claim and its completion because the work was the same: not its own', async () => {
    const claim1 = tx('worker-1', KEYED, ['op/1042']);
    const done1 = tx('worker-1', KEYED, ['op/1042']);
    const claim2 = tx('worker-2', KEYED, ['op/1043']);
    const done2 = tx('worker-2', KEYED, ['op/1043']);
    const trace = [receive('worker-1', 'm1'), receive('worker-2', 'm2'), ...claim1.events, ...claim2.events, ...done1.events, ...done2.events];
    const keys = await advisoryLockKeys(trace, sim.db);
    expect([claim1.lock, done2.lock].map((e) => keys.ownOnly(e))).toEqual([false, false]);
  });

  test('a key that stays the same over two messages is still the worker\'s own', async () => {
    const a1 = tx('worker-1', XACT, [1111]);
    const a2 = tx('worker-1', XACT, [1111]);
    const b1 = tx('worker-2', XACT, [2222]);
    const b2 = tx('worker-2', XACT, [2222]);
    const trace = [receive('worker-1', 'm1'), ...a1.events, receive('worker-1', 'm2'), ...a2.events, receive('worker-2', 'm1'), ...b1.events, receive('worker-2', 'm2'), ...b2.events];
    expect((await advisoryLockKeys(trace, sim.db)).ownOnly(a2.lock)).toBe(true);
  });
});

describe('a session lock let go', () => {
  const SESSION = 'SELECT pg_advisory_lock(hashtext($1))';
  const UNLOCK = 'SELECT pg_advisory_unlock(hashtext($1))';
  test('inside the transaction, before COMMIT, kept nobody out', async () => {
    const lock = db('worker-1', SESSION, ['op/1042']);
    const trace = [db('worker-1', 'BEGIN'), lock, db('worker-1', 'SELECT 1 FROM operations'), db('worker-1', UNLOCK, ['op/1042']), db('worker-1', 'COMMIT')];
    expect((await advisoryLockKeys(trace, sim.db)).ownOnly(lock)).toBe(true);
  });
  test('after COMMIT, it did', async () => {
    const lock = db('worker-1', SESSION, ['op/1042']);
    const trace = [lock, db('worker-1', 'BEGIN'), db('worker-1', 'SELECT 1 FROM operations'), db('worker-1', 'COMMIT'), db('worker-1', UNLOCK, ['op/1042'])];
    expect((await advisoryLockKeys(trace, sim.db)).ownOnly(lock)).toBe(false);
  });
});

describe('a lock on a NULL key', () => {
  // pg_advisory_xact_lock is STRICT on PostgreSQL: a NULL argument takes no lock and answers NULL.
  test('took nothing: a sub-select that finds no row, and a NULL parameter', async () => {
    const byRow = db('worker-1', 'SELECT pg_advisory_xact_lock((SELECT max(x) FROM (VALUES (1)) AS v (x) WHERE x = $1))', [1042]);
    const byParam = db('worker-2', 'SELECT pg_advisory_xact_lock($1, $2)', [7, null]);
    const real = db('worker-2', 'SELECT pg_advisory_xact_lock(hashtext($1))', ['op/1042']);
    const keys = await advisoryLockKeys([byRow, byParam, real], sim.db);
    expect([byRow, byParam, real].map((e) => keys.tookNothing(e))).toEqual([true, true, false]);
  });

  test('in the tab as on PostgreSQL: the stand-in answers NULL and holds nothing', async () => {
    await sim.db.reset();
    const rows = async (pid: string, sql: string) => {
      const got = await sim.db.query(pid, sql, [], 0);
      return 'rows' in got ? got.rows : null;
    };
    expect(await rows('worker-1', 'SELECT pg_try_advisory_lock(NULL::bigint) AS got')).toEqual([{ got: null }]);
    await rows('worker-1', 'SELECT pg_advisory_lock(NULL::bigint)');
    expect(await rows('worker-2', 'SELECT pg_try_advisory_lock(NULL::bigint) AS got')).toEqual([{ got: null }]);
    expect(await rows('worker-2', 'SELECT pg_advisory_unlock_all()')).toBeTruthy();
  });
});
