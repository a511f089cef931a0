/**
 * The model of two overlapping transactions (simulations/lessons/kit/overlap.ts), on traces built
 * by hand: which decisions PostgreSQL would let a second worker slip past, and which it would not.
 */
import { describe, expect, test } from 'vitest';
import { firstUncheckedAct } from '../simulations/lessons/kit/overlap';
import { insertedKeyValues, type UniqueKeys } from '../simulations/lessons/kit/unique-keys';
import type { TraceEvent } from '../simulations/engine/types';

type Ev = Omit<TraceEvent, 'i' | 't' | 'step' | 'text'>;

const receive = (pid: string, messageId = 'm1'): Ev => ({ actor: 'queue', type: 'receive', target: pid, data: { messageId, attempt: 1, body: {} } });
const db = (pid: string, sql: string, extra: Record<string, unknown> = {}): Ev => ({ actor: pid, type: 'db', data: { sql, params: [], rows: [], ...extra } });
const read = (pid: string, sql: string, rows: unknown[] = []): Ev => db(pid, sql, { rows, rowsRead: true });
const send = (pid: string, options: Record<string, unknown> = {}): Ev => ({ actor: pid, type: 'call', call: 'email.send', data: { request: {}, options } });
const ack = (pid: string): Ev => ({ actor: pid, type: 'ack', data: { messageId: 'm1' } });

function trace(...events: Ev[]): TraceEvent[] {
  return events.map((e, i) => ({ ...e, i, t: i * 10, step: i, text: '' }));
}

/** worker-2 holds the same message throughout, so every handling of worker-1 overlaps one. */
const both = (...worker1: Ev[]) => trace(receive('worker-2'), receive('worker-1'), ...worker1, ack('worker-1'), ack('worker-2'));
/** The same, worker-2 having run `worker2` first: the statements it shares with worker-1 name rows that are every worker's. */
const bothAfter = (worker2: Ev[], ...worker1: Ev[]) => trace(receive('worker-2'), ...worker2, receive('worker-1'), ...worker1, ack('worker-1'), ack('worker-2'));
/** `e` as worker-2 ran it, answered with no rows. */
const asWorker2 = (e: Ev): Ev => ({ ...e, actor: 'worker-2', data: { ...(e.data as object), rows: [], affected: 0 } });

const SELECT = 'SELECT 1 FROM operations WHERE op_key = $1';
const INSERT_IGNORED = `INSERT INTO operations (op_key, state) VALUES ($1, 'running') ON CONFLICT DO NOTHING`;

describe('a decision PostgreSQL lets a second worker slip past', () => {
  test('a read, a lock after it and an insert whose answer is ignored, then the call after COMMIT', () => {
    const found = firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'SELECT pg_advisory_xact_lock(hashtext($1))'), db('worker-1', INSERT_IGNORED), db('worker-1', 'COMMIT'), send('worker-1')));
    expect(found?.afterCommit).toBe(true);
    expect(found?.call.actor).toBe('worker-1');
    expect(String((found?.read.data as { sql: string }).sql)).toBe(SELECT);
  });

  test('a compare-and-set UPDATE without RETURNING whose rowCount the code never looked at', () => {
    const found = firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', `UPDATE operations SET lease_until = now() WHERE op_key = $1 AND lease_until < now()`, { affected: 1 }), db('worker-1', 'COMMIT'), send('worker-1')));
    expect(String((found?.read.data as { sql: string } | undefined)?.sql)).toBe(SELECT);
  });

  test('SELECT … FOR UPDATE outside a transaction: its lock ended with it, and the read in the transaction after it decides', () => {
    const found = firstUncheckedAct(
      both(read('worker-1', `${SELECT} FOR UPDATE`, [{ '?column?': 1 }]), db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', `UPDATE operations SET lease_until = now() WHERE op_key = $1`, { affected: 1 }), db('worker-1', 'COMMIT'), send('worker-1')),
    );
    expect(String((found?.read.data as { sql: string } | undefined)?.sql)).toBe(SELECT);
  });

  test('a call inside the transaction, on a read that locked nothing', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), send('worker-1')))?.afterCommit).toBe(false);
  });

  test('FOR UPDATE that found no row locks nothing', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', `${SELECT} FOR UPDATE`), db('worker-1', INSERT_IGNORED), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a lock taken in the statement that reads: its snapshot came first', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', 'SELECT pg_advisory_xact_lock(1), (SELECT count(*) FROM operations) AS n', [{ n: 0 }]), db('worker-1', INSERT_IGNORED), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a plain INSERT into another table than the one checked (an outbox row) claims nothing', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', `INSERT INTO outbox (topic) VALUES ('x')`), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('an UPDATE … RETURNING that found nothing locked nothing', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', `UPDATE operations SET lease_until = now() WHERE op_key = $1 AND lease_until < now() RETURNING op_key`), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a plain SELECT after the COMMIT (a log line) is no new decision', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), db('worker-1', SELECT), send('worker-1')))).not.toBeNull();
  });

  test('a DELETE that deleted nothing, then a read of that table: nothing of it is held', () => {
    const cleared = db('worker-1', `DELETE FROM operations WHERE op_key = $1 AND lease_until < now()`, { affected: 0 });
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), cleared, read('worker-1', SELECT), db('worker-1', INSERT_IGNORED, { affected: 0 }), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('an upsert that returns a row either way, before the transaction, claims nothing', () => {
    const counted = db('worker-1', `INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET result = '1' RETURNING result`, { rows: [{ result: '1' }], affected: 1 });
    expect(firstUncheckedAct(both(counted, db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a counter every delivery bumps and passes (a row back for each) is no claim once another worker won it too before this one acted', () => {
    const BUMP = `INSERT INTO check_attempts (order_id, attempts) VALUES ($1, 1) ON CONFLICT (order_id) DO UPDATE SET attempts = check_attempts.attempts + 1 WHERE check_attempts.attempts < 10 RETURNING attempts`;
    const bump = (pid: string, attempts: number): Ev => ({ actor: pid, type: 'db', data: { sql: BUMP, params: [1042], rows: attempts ? [{ attempts }] : [], affected: attempts ? 1 : 0, rowsRead: true } });
    const decide = [db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT')];
    const run = (worker2: Ev[], at: 'before the send' | 'after the send') =>
      trace(receive('worker-2'), receive('worker-1'), bump('worker-1', 1), ...(at === 'before the send' ? worker2 : []), ...decide, send('worker-1'), ...(at === 'after the send' ? worker2 : []), ack('worker-1'), ack('worker-2'));
    // The other worker got a row back too and went on the same way (to its own check).
    expect(firstUncheckedAct(run([bump('worker-2', 2), db('worker-2', 'BEGIN')], 'before the send'))).not.toBeNull();
    // The other worker got nothing back: the bump was this worker's alone.
    expect(firstUncheckedAct(run([bump('worker-2', 0), db('worker-2', 'BEGIN')], 'before the send'))).toBeNull();
    // It got a row, but one that sent it another way (a loser's row saying 'running'): the answer told them apart.
    expect(firstUncheckedAct(run([bump('worker-2', 2), read('worker-2', SELECT)], 'before the send'))).toBeNull();
    // The other worker won it only after this one had acted (a takeover once a lease ran out).
    expect(firstUncheckedAct(run([bump('worker-2', 2), db('worker-2', 'BEGIN')], 'after the send'))).toBeNull();
  });

  test('an upsert that returns a row either way, after the read that decided', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), read('worker-1', `INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET lease_until = now() RETURNING op_key`, [{ op_key: 'k' }]), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a plain INSERT of another key than the one checked (a fresh attempt row) claims nothing', () => {
    const checked = db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true });
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), checked, db('worker-1', `INSERT INTO operations (op_key) VALUES ($1)`, { params: ['k:attempt-7'] }), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test("a plain INSERT whose key joins the checked key to an attempt's own id: the other worker's row never meets it", () => {
    const checked = db('worker-1', `SELECT bool_or(state = 'done') AS done FROM operations WHERE op_key LIKE $1::text || '/%'`, { params: ['k'], rows: [{ done: null }], rowsRead: true });
    const attempt = db('worker-1', `INSERT INTO operations (op_key, state) VALUES ($1::text || '/' || $2::text, 'running')`, { params: ['k', 'a1b2c3'] });
    // worker-2 inserted its attempt's row too, under its own id: the rows never meet.
    const theirs = db('worker-2', `INSERT INTO operations (op_key, state) VALUES ($1::text || '/' || $2::text, 'running')`, { params: ['k', 'd4e5f6'] });
    expect(firstUncheckedAct(bothAfter([theirs], db('worker-1', 'BEGIN'), checked, attempt, db('worker-1', 'COMMIT'), send('worker-1')), false, new Map(), undefined, OPERATIONS_KEYS)).not.toBeNull();
  });

  test('a row of its own written under another key (a heartbeat) holds nothing of what it reads next', () => {
    const heartbeat = db('worker-1', `INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET lease_until = now()`, { params: ['heartbeat:worker-1'], affected: 1 });
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), heartbeat, db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true }), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a log row inserted before the transaction under another key is no claim of the key it checks', () => {
    const logged = db('worker-1', `INSERT INTO operations (op_key) VALUES ($1)`, { params: ['delivery:42'] });
    expect(firstUncheckedAct(both(logged, db('worker-1', 'BEGIN'), db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true }), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('an EXECUTE is judged as the statement it prepared', () => {
    const prepare = db('worker-1', `PREPARE receipt_state(text) AS ${SELECT}`);
    expect(firstUncheckedAct(both(prepare, db('worker-1', 'BEGIN'), read('worker-1', `EXECUTE receipt_state('k')`), db('worker-1', INSERT_IGNORED), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
    expect(firstUncheckedAct(both(db('worker-1', `PREPARE lock_it(text) AS ${SELECT} FOR UPDATE`), db('worker-1', 'BEGIN'), read('worker-1', `EXECUTE lock_it('k')`, [{ '?column?': 1 }]), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
  });

  test('a lock keyed on the connection pid excludes nobody', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), db('worker-1', 'SELECT pg_advisory_xact_lock(pg_backend_pid())'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });
});

describe("a row of the attempt's own keeps no other worker out", () => {
  const CHECK = db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true });
  const ATTEMPTS: UniqueKeys = new Map([['delivery_attempts', [['attempt_id']]]]);
  const attempt = (id: string) => db('worker-1', 'INSERT INTO delivery_attempts (attempt_id, op_key) VALUES ($1, $2)', { params: [id, 'k'] });
  const UUID = '6f1c0a3e-2b7d-4c1e-9a55-0d3b8f2e7c41';
  const judged = (...worker1: Ev[]) => firstUncheckedAct(both(...worker1), false, new Map(), undefined, ATTEMPTS);

  test('a row under a fresh UUID, inserted in the transaction before the check', () => {
    expect(judged(db('worker-1', 'BEGIN'), attempt(UUID), CHECK, db('worker-1', INSERT_IGNORED, { params: ['k'] }), db('worker-1', 'COMMIT'), send('worker-1'))).not.toBeNull();
  });

  test('a row under a fresh UUID, inserted before the transaction', () => {
    expect(judged(attempt(UUID), db('worker-1', 'BEGIN'), CHECK, db('worker-1', 'COMMIT'), send('worker-1'))).not.toBeNull();
  });

  test("the connection's own row, locked by pg_backend_pid()", () => {
    const own = read('worker-1', 'SELECT n FROM consumer_sessions WHERE backend = pg_backend_pid() FOR UPDATE', [{ n: 1 }]);
    expect(judged(db('worker-1', 'BEGIN'), own, CHECK, db('worker-1', 'COMMIT'), send('worker-1'))).not.toBeNull();
  });

  test('but a UUID another worker used too (one the message carries) names a row they share', () => {
    const other = db('worker-2', 'SELECT 1 FROM delivery_attempts WHERE attempt_id = $1', { params: [UUID] });
    expect(firstUncheckedAct(trace(receive('worker-2'), other, receive('worker-1'), db('worker-1', 'BEGIN'), attempt(UUID), CHECK, db('worker-1', 'COMMIT'), send('worker-1'), ack('worker-1'), ack('worker-2')), false, new Map(), undefined, ATTEMPTS)).toBeNull();
  });

  test("a log row whose key is a sequence's, and a status row keyed on the worker: neither is another worker's", () => {
    const KEYS: UniqueKeys = new Map([
      ['delivery_log', [['id']]],
      ['worker_status', [['worker']]],
    ]);
    const log = db('worker-1', 'INSERT INTO delivery_log (order_id, worker) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id', { params: [1042, 'worker-1'], rows: [{ id: 7 }], rowsRead: true });
    const status = db('worker-1', 'INSERT INTO worker_status (worker, order_id) VALUES ($1, $2) ON CONFLICT (worker) DO UPDATE SET order_id = EXCLUDED.order_id RETURNING since', { params: ['worker-1', 1042], rows: [{ since: 'now' }], rowsRead: true });
    for (const [name, row] of [['log', log], ['status', status]] as const) {
      // worker-2 wrote the same table under its own name.
      const theirs = { ...row, actor: 'worker-2', data: { ...(row.data as object), params: name === 'log' ? [1042, 'worker-2'] : ['worker-2', 1042] } };
      const events = bothAfter([theirs], db('worker-1', 'BEGIN'), row, CHECK, db('worker-1', INSERT_IGNORED, { params: ['k'] }), db('worker-1', 'COMMIT'), send('worker-1'));
      // Keyed on the worker's name beside the order, the row is no other worker's, keys or not.
      expect(firstUncheckedAct(events, false, new Map(), undefined, null), name).not.toBeNull();
      expect(firstUncheckedAct(events, false, new Map(), undefined, KEYS), name).not.toBeNull();
    }
  });

  test('and a lock row keyed on the operation, in another table, still covers the check', () => {
    expect(judged(db('worker-1', 'BEGIN'), db('worker-1', 'INSERT INTO op_locks (op_key) VALUES ($1)', { params: ['k'] }), CHECK, db('worker-1', 'COMMIT'), send('worker-1'))).toBeNull();
  });
});

describe('a claims table, a lock row and the TABLE command', () => {
  const CHECK = db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true });
  const judged = (keys: UniqueKeys, ...worker1: Ev[]) => firstUncheckedAct(both(db('worker-1', 'BEGIN'), ...worker1, db('worker-1', 'COMMIT'), send('worker-1')), false, new Map(), undefined, keys);

  test('a plain INSERT of the checked key into a claims table beside the one checked: only one worker gets past its unique key', () => {
    const claims: UniqueKeys = new Map([['receipt_claims', [['op_key']]]]);
    expect(judged(claims, CHECK, db('worker-1', 'INSERT INTO receipt_claims (op_key, lease_until) VALUES ($1, now())', { params: ['k'] }))).toBeNull();
    // Not when that table leaves its key to a sequence: two workers' rows never meet.
    const serial: UniqueKeys = new Map([['receipt_claims', [['id']]]]);
    expect(judged(serial, CHECK, db('worker-1', 'INSERT INTO receipt_claims (op_key, lease_until) VALUES ($1, now())', { params: ['k'] }))).not.toBeNull();
  });

  test("an UPDATE of a lock row before the check holds that row whether or not the code read its count", () => {
    const touch = (affected: number) => db('worker-1', 'UPDATE receipt_locks SET touched_at = now() WHERE op_key = $1', { params: ['k'], affected });
    expect(judged(OPERATIONS_KEYS, touch(1), CHECK)).toBeNull();
    // One that matched no row locked nothing.
    expect(judged(OPERATIONS_KEYS, touch(0), CHECK)).not.toBeNull();
  });

  test('the TABLE command reads the whole table, unlocked', () => {
    expect(judged(OPERATIONS_KEYS, db('worker-1', 'TABLE operations', { rows: [], rowsRead: true }), db('worker-1', INSERT_IGNORED, { params: ['k'] }))).not.toBeNull();
  });
});

describe('isolation levels and comments', () => {
  const judged = (...worker1: Ev[]) => firstUncheckedAct(both(...worker1, send('worker-1')));

  test('REPEATABLE READ with a claim row per worker (write skew): both find nothing, both commit', () => {
    const found = judged(
      db('worker-1', 'BEGIN ISOLATION LEVEL REPEATABLE READ'),
      db('worker-1', 'SELECT bool_or(state = $2) AS done FROM operations WHERE op_key LIKE $1', { params: ['k/%', 'done'], rows: [{ done: null }], rowsRead: true }),
      db('worker-1', `INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET state = 'running'`, { params: ['k/worker-1'] }),
      db('worker-1', 'COMMIT'),
    );
    expect(found).not.toBeNull();
  });

  test('REPEATABLE READ whose write names the rows the check read: PostgreSQL fails it if another transaction got there since the snapshot', () => {
    const found = judged(
      db('worker-1', 'BEGIN ISOLATION LEVEL REPEATABLE READ'),
      db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true }),
      db('worker-1', INSERT_IGNORED, { params: ['k'] }),
      db('worker-1', 'COMMIT'),
    );
    expect(found).toBeNull();
  });

  test('REPEATABLE READ with an upsert of a key joined to the worker\'s name: the two rows never collide', () => {
    const uniqueKeys: UniqueKeys = new Map([['operations', [['op_key']]]]);
    const trace = both(
      db('worker-1', 'BEGIN ISOLATION LEVEL REPEATABLE READ'),
      db('worker-1', `SELECT state FROM operations WHERE op_key = $1 OR op_key LIKE $1 || ':%'`, { params: ['k'], rows: [], rowsRead: true }),
      db('worker-1', `INSERT INTO operations (op_key, state) VALUES ($1 || ':' || $2, 'running') ON CONFLICT (op_key) DO UPDATE SET state = 'running'`, { params: ['k', 'worker-1'], affected: 1 }),
      db('worker-1', 'COMMIT'),
      send('worker-1'),
    );
    expect(firstUncheckedAct(trace, false, new Map(), undefined, uniqueKeys)).not.toBeNull();
  });

  test('SET LOCAL transaction_isolation is SET TRANSACTION ISOLATION LEVEL by another name', () => {
    expect(judged(db('worker-1', 'BEGIN'), db('worker-1', "SET LOCAL transaction_isolation = 'serializable'"), read('worker-1', SELECT), db('worker-1', INSERT_IGNORED), db('worker-1', 'COMMIT'))).toBeNull();
  });

  test('REPEATABLE READ set for the session counts the same way', () => {
    const session = db('worker-1', 'SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const skew = judged(session, db('worker-1', 'BEGIN'), db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true }), db('worker-1', INSERT_IGNORED, { params: ['k/mine'] }), db('worker-1', 'COMMIT'));
    expect(skew).not.toBeNull();
  });

  test('a default for later transactions set inside this one leaves it READ COMMITTED; set for the session, it holds for the next', () => {
    const decide = [read('worker-1', SELECT), db('worker-1', INSERT_IGNORED), db('worker-1', 'COMMIT')];
    expect(judged(db('worker-1', 'BEGIN'), db('worker-1', "SET LOCAL default_transaction_isolation = 'serializable'"), ...decide)).not.toBeNull();
    expect(judged(db('worker-1', 'BEGIN'), db('worker-1', "SELECT set_config('default_transaction_isolation', 'serializable', true)"), ...decide)).not.toBeNull();
    expect(judged(db('worker-1', 'BEGIN'), db('worker-1', "SET default_transaction_isolation = 'serializable'"), ...decide)).not.toBeNull();
    // The next transaction of the session runs SERIALIZABLE.
    expect(judged(db('worker-1', 'BEGIN'), db('worker-1', "SET default_transaction_isolation = 'serializable'"), db('worker-1', 'COMMIT'), db('worker-1', 'BEGIN'), ...decide)).toBeNull();
  });

  test('a comment that names SERIALIZABLE or default_transaction_isolation changes nothing', () => {
    const commented = judged(
      db('worker-1', 'BEGIN'),
      read('worker-1', `-- default_transaction_isolation stays read committed: serializable retries cost too much
${SELECT}`),
      db('worker-1', INSERT_IGNORED),
      db('worker-1', 'COMMIT'),
    );
    expect(commented).not.toBeNull();
    expect(judged(db('worker-1', 'BEGIN /* isolation level serializable would do */'), read('worker-1', SELECT), db('worker-1', 'COMMIT'))).not.toBeNull();
  });

  test('a lock or FOR UPDATE that survives only in a comment locks nothing', () => {
    expect(judged(db('worker-1', 'BEGIN'), db('worker-1', '/* SELECT pg_advisory_xact_lock(hashtext($1)) */ SELECT 1'), read('worker-1', SELECT), db('worker-1', 'COMMIT'))).not.toBeNull();
    expect(judged(db('worker-1', 'BEGIN'), read('worker-1', `${SELECT} -- FOR UPDATE`, [{ '?column?': 1 }]), db('worker-1', 'COMMIT'))).not.toBeNull();
  });
});

describe('a decision PostgreSQL makes atomic', () => {
  const safe = (...worker1: Ev[]) => expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), ...worker1, db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();

  test('an excluding lock before the read', () => safe(db('worker-1', 'SELECT pg_advisory_xact_lock(hashtext($1))'), read('worker-1', SELECT)));
  test('a write whose rows the code read', () => safe(read('worker-1', SELECT), read('worker-1', `${INSERT_IGNORED} RETURNING op_key`, [{ op_key: 'k' }])));
  test('a plain INSERT, which the unique key fails for the second worker', () => safe(read('worker-1', SELECT), db('worker-1', `INSERT INTO operations (op_key, state) VALUES ($1, 'running')`)));
  test('FOR UPDATE that locked a row', () => safe(read('worker-1', `${SELECT} FOR UPDATE`, [{ '?column?': 1 }])));
  test('SERIALIZABLE', () => safe(db('worker-1', 'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE'), read('worker-1', SELECT)));
  test('a read whose rows the code never looked at', () => safe(db('worker-1', SELECT), db('worker-1', INSERT_IGNORED)));

  test('a re-read under a lock taken after the first read (double-checked)', () =>
    safe(read('worker-1', SELECT), db('worker-1', 'SELECT pg_advisory_xact_lock(hashtext($1))'), read('worker-1', SELECT), db('worker-1', `INSERT INTO operations (op_key) VALUES ($1)`)));
  test('a read after this transaction wrote the same table', () => safe(db('worker-1', `INSERT INTO operations AS o (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET token = 1 WHERE o.lease_until < now()`), read('worker-1', 'SELECT token FROM operations WHERE op_key = $1', [{ token: 1 }])));
  test('a data-modifying CTE with an alias whose rows the code read', () => safe(read('worker-1', `WITH t AS (UPDATE operations AS o SET lease_until = now() WHERE o.op_key = $1 RETURNING o.op_key) SELECT * FROM t`, [{ op_key: 'k' }])));
  test('a DELETE that deleted a row holds it: a read of that table after it waited for the other worker', () =>
    safe(db('worker-1', `DELETE FROM operations WHERE op_key = $1 AND lease_until < now()`, { affected: 1 }), read('worker-1', SELECT)));
  test('an upsert that returns a row either way, as the first decision: it locked that row', () =>
    safe(read('worker-1', `INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET lease_until = now() RETURNING state`, [{ state: 'running' }])));
  test('an upsert whose conflict arm has a WHERE (compare-and-set) and whose row the code read', () =>
    safe(read('worker-1', SELECT), read('worker-1', `INSERT INTO operations AS o (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET lease_until = now() WHERE o.lease_until < now() RETURNING op_key`, [{ op_key: 'k' }])));
  test('LOCK TABLE behind a comment', () => safe(db('worker-1', '-- one at a time\nLOCK TABLE operations IN SHARE ROW EXCLUSIVE MODE'), read('worker-1', SELECT)));
  test('after a read in a transaction of its own, an autocommit compare-and-set whose rowCount the code checked decides', () =>
    expect(
      firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), db('worker-1', `UPDATE operations SET lease_until = now() WHERE op_key = $1 AND lease_until < now()`, { rowsRead: true, affected: 1 }), send('worker-1'))),
    ).toBeNull());
  test('a compare-and-set UPDATE without RETURNING whose rowCount the code checked: it changed the row the read saw', () =>
    safe(read('worker-1', SELECT), db('worker-1', `UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1 AND lease_until < now()`, { rowsRead: true, affected: 1 })));

  test('an upsert returning xmax (inserted or not) before the transaction: the code can tell', () => {
    expect(firstUncheckedAct(both(db('worker-1', `INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET op_key = EXCLUDED.op_key RETURNING (xmax = 0) AS inserted`, { rows: [{ inserted: true }] }), db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
  });

  test('a claim of the key it then checks, before the transaction, and a read of another table', () => {
    const claim = db('worker-1', `${INSERT_IGNORED} RETURNING op_key`, { params: ['k'], rows: [{ op_key: 'k' }] });
    expect(firstUncheckedAct(both(claim, db('worker-1', 'BEGIN'), db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true }), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
    // Of another table: the claimed row is every worker's (worker-2 asked for it too), not one of worker-1's own.
    const other = db('worker-1', 'SELECT 1 FROM receipts WHERE order_id = $1', { params: [1042], rows: [], rowsRead: true });
    expect(firstUncheckedAct(bothAfter([asWorker2(claim)], claim, db('worker-1', 'BEGIN'), other, db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
    // worker-2's claim named another row (its own attempt): worker-1's is its own, and the read of receipts decides.
    const own = db('worker-1', `INSERT INTO claims (op_key, attempt) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING op_key`, { params: ['k', 'a-1'], rows: [{ op_key: 'k' }] });
    const theirs = db('worker-2', `INSERT INTO claims (op_key, attempt) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING op_key`, { params: ['k', 'a-2'], rows: [{ op_key: 'k' }] });
    expect(firstUncheckedAct(bothAfter([theirs], own, db('worker-1', 'BEGIN'), other, db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a plain INSERT of a key built from the checked value and constants only: every worker builds the same', () => {
    const checked = db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true });
    const claim = db('worker-1', `INSERT INTO operations (op_key, state, lease_until) VALUES ('claim:' || $1, $2, now() + interval '30 seconds')`, { params: ['k', 'running'] });
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), checked, claim, db('worker-1', 'COMMIT'), send('worker-1')), false, new Map(), undefined, OPERATIONS_KEYS)).toBeNull();
  });

  test('a plain INSERT of the key it checked', () => {
    const checked = db('worker-1', SELECT, { params: ['k'], rows: [], rowsRead: true });
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), checked, db('worker-1', `INSERT INTO operations (op_key) VALUES ($1)`, { params: ['k'] }), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
  });

  test('a claim of its own that returned its row, before the transaction', () => {
    expect(firstUncheckedAct(both(db('worker-1', `${INSERT_IGNORED} RETURNING op_key`, { rows: [{ op_key: 'k' }] }), db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
  });

  test('SERIALIZABLE set for the session before BEGIN, until RESET ALL', () => {
    const session = db('worker-1', 'SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE');
    expect(firstUncheckedAct(both(session, db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
    expect(firstUncheckedAct(both(session, db('worker-1', 'RESET ALL'), db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a lock called in the select list of a query that found no row was never taken', () => {
    const lockOnRow = 'SELECT pg_advisory_xact_lock(hashtext(op_key)) FROM operations WHERE op_key = $1';
    const decide = [read('worker-1', SELECT), db('worker-1', INSERT_IGNORED), db('worker-1', 'COMMIT'), send('worker-1')];
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), db('worker-1', lockOnRow, { rows: [] }), ...decide))).not.toBeNull();
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), db('worker-1', lockOnRow, { rows: [{ pg_advisory_xact_lock: '' }] }), ...decide))).toBeNull();
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), db('worker-1', 'SELECT pg_advisory_xact_lock(hashtext($1))', { rows: [{ pg_advisory_xact_lock: '' }] }), ...decide))).toBeNull();
  });

  test('LOCK TABLE IN SHARE MODE before the check holds once the transaction writes that table', () => {
    const share = db('worker-1', 'LOCK TABLE operations IN SHARE MODE');
    const upsert = `INSERT INTO operations (op_key, state) VALUES ($1, 'running') ON CONFLICT (op_key) DO UPDATE SET state = 'running'`;
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), share, read('worker-1', SELECT), db('worker-1', upsert), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
    // No write to the table: both holders read "no row" and go on.
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), share, read('worker-1', SELECT), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
    // Taken after the check: the other worker may have written and committed in between.
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), share, db('worker-1', upsert), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
    // A write to another table than the one locked.
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), db('worker-1', 'LOCK TABLE notes IN SHARE MODE'), read('worker-1', SELECT), db('worker-1', upsert), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a session lock taken before BEGIN', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'SELECT pg_advisory_lock(hashtext($1))'), db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
  });

  test('a ROLLBACK, or a statement of its own between the COMMIT and the call (its own claim)', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'ROLLBACK'), send('worker-1')))).toBeNull();
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), read('worker-1', `${INSERT_IGNORED} RETURNING op_key`, [{ op_key: 'k' }]), send('worker-1')))).toBeNull();
  });
});

describe('when it counts', () => {
  const unsafe = [db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT')];

  test('only when another process handled the same message at the same time', () => {
    // worker-1 acks before worker-2 ever gets the message: a redelivery, not an overlap.
    expect(firstUncheckedAct(trace(receive('worker-1'), ...unsafe, send('worker-1'), ack('worker-1'), receive('worker-2')))).toBeNull();
    expect(firstUncheckedAct(trace(receive('worker-1'), receive('worker-2', 'm2'), ...unsafe, send('worker-1')))).toBeNull();
    expect(firstUncheckedAct(trace(receive('worker-1'), ...unsafe, receive('worker-2'), send('worker-1')))).not.toBeNull();
  });

  test('a keyed call is the provider’s to dedupe where the lesson says so', () => {
    const keyed = both(...unsafe, send('worker-1', { idempotencyKey: 'k' }));
    expect(firstUncheckedAct(keyed, true)).toBeNull();
    expect(firstUncheckedAct(keyed, false)).not.toBeNull();
  });
});

describe('a decision spread over two transactions', () => {
  const check = [db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT')];

  test('a later transaction that only pushes the lease forward by key decided nothing: the earlier check still stands', () => {
    const refresh = [db('worker-1', 'BEGIN'), db('worker-1', `UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, { params: ['k'], affected: 1 }), db('worker-1', 'COMMIT')];
    expect(firstUncheckedAct(both(...check, ...refresh, send('worker-1')))?.afterCommit).toBe(true);
  });

  test('a later transaction whose plain INSERT of the key claims it (the unique key fails the second worker) decides', () => {
    const claim = [db('worker-1', 'BEGIN'), db('worker-1', `INSERT INTO operations (op_key, state) VALUES ($1, 'running')`, { params: ['k'] }), db('worker-1', 'COMMIT')];
    expect(firstUncheckedAct(both(...check, ...claim, send('worker-1')))).toBeNull();
  });

  test('a plain INSERT that leaves its table\'s unique key to a sequence claims nothing; one naming the key column (queue_id) does', () => {
    const keys = new Map([['outbox', [['id']]], ['claims', [['queue_id']]]]);
    const note = db('worker-1', `INSERT INTO outbox (topic, payload) VALUES ('note', '{}')`);
    expect(firstUncheckedAct(both(...check, note, send('worker-1')), false, new Map(), undefined, keys)).not.toBeNull();
    const claim = db('worker-1', 'INSERT INTO claims (queue_id, owner) VALUES ($1, $2)', { params: ['k', 'worker-1'] });
    expect(firstUncheckedAct(both(...check, claim, send('worker-1')), false, new Map(), undefined, keys)).toBeNull();
  });

  test('rows locked first cover a read of the same rows, not another row of the same table (the worker\'s own counter)', () => {
    const counter = read('worker-1', `INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET result = '1' RETURNING result`, [{ result: 1 }]);
    (counter.data as { params: unknown[] }).params = ['stats:worker-1'];
    const keyed = read('worker-1', SELECT, [{ '?column?': 1 }]);
    (keyed.data as { params: unknown[] }).params = ['k'];
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), counter, keyed, db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
    const own = read('worker-1', `INSERT INTO operations (op_key) VALUES ($1) ON CONFLICT (op_key) DO UPDATE SET lease_until = now() RETURNING op_key`, [{ op_key: 'k' }]);
    (own.data as { params: unknown[] }).params = ['k'];
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), own, keyed, db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
  });
});

/** The operations table's primary key, as the engine reads it from the database. */
const OPERATIONS_KEYS: UniqueKeys = new Map([['operations', [['op_key']]]]);

describe('the values a plain INSERT puts into a unique key', () => {
  test('each parameter the key column is built from, through casts and concatenation; not the other columns', () => {
    expect(insertedKeyValues(`INSERT INTO operations (op_key, state) VALUES ($1::text || '/' || $2::text, $3)`, OPERATIONS_KEYS, ['k', 'a1', 'running'])).toEqual([new Set(['k', 'a1'])]);
    expect(insertedKeyValues(`INSERT INTO public.operations AS o (state, op_key) VALUES ('running', $1)`, OPERATIONS_KEYS, ['k'])).toEqual([new Set(['k'])]);
    // A comma inside a function call or a string splits nothing.
    expect(insertedKeyValues(`INSERT INTO operations (op_key, state) VALUES (concat_ws(',', $1, 'x'), 'a,b')`, OPERATIONS_KEYS, ['k'])).toEqual([new Set(['k'])]);
  });

  test('unknown when it cannot be read: several rows, INSERT … SELECT, a key without parameters, no keys read, a table without keys', () => {
    expect(insertedKeyValues(`INSERT INTO operations (op_key) VALUES ($1), ($2)`, OPERATIONS_KEYS, ['k', 'j'])).toBeNull();
    expect(insertedKeyValues(`INSERT INTO operations (op_key) SELECT $1`, OPERATIONS_KEYS, ['k'])).toBeNull();
    expect(insertedKeyValues(`INSERT INTO operations (op_key) VALUES (gen_random_uuid()::text)`, OPERATIONS_KEYS, [])).toBeNull();
    expect(insertedKeyValues(`INSERT INTO operations (op_key) VALUES ($1)`, null, ['k'])).toBeNull();
    expect(insertedKeyValues(`INSERT INTO outbox (topic) VALUES ($1)`, OPERATIONS_KEYS, ['x'])).toBeNull();
  });
});

describe('row locks by strength, and decisions made another way (the eighteenth review)', () => {
  const EXPIRED = [{ state: 'running', expired: true }];
  const TAKE = `UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`;

  test('FOR KEY SHARE keeps out neither the other KEY SHARE nor an UPDATE of the lease: caught', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', `${SELECT} FOR KEY SHARE`, EXPIRED), db('worker-1', TAKE, { affected: 1 }), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('FOR SHARE, then an UPDATE of the rows it read: two holders deadlock, one fails', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', `${SELECT} FOR SHARE`, EXPIRED), db('worker-1', TAKE, { affected: 1 }), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
  });

  test('FOR SHARE, then an UPDATE that changed no row: it locked nothing more, so nothing deadlocks', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', `${SELECT} FOR SHARE`, EXPIRED), db('worker-1', TAKE, { affected: 0 }), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('FOR SHARE, then no write: both holders read the same answer and go on', () => {
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', `${SELECT} FOR SHARE`, EXPIRED), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a FOR UPDATE after the deciding read, whose rows the code ignores, decides nothing', () => {
    const locked = db('worker-1', `${SELECT} FOR UPDATE`, { rows: [{ '?column?': 1 }] });
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT, EXPIRED), locked, db('worker-1', TAKE, { affected: 1 }), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a gate row of the same table, locked FOR UPDATE before the check', () => {
    const gate = read('worker-1', `${SELECT} FOR UPDATE`, [{ '?column?': 1 }]);
    (gate.data as { params: unknown[] }).params = ['gate/1042'];
    const check = read('worker-1', SELECT);
    (check.data as { params: unknown[] }).params = ['op/1042'];
    expect(firstUncheckedAct(bothAfter([asWorker2(gate)], db('worker-1', 'BEGIN'), gate, check, db('worker-1', INSERT_IGNORED), db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
    // A row per worker (its slot): worker-2 locks another one, so the reads do not take turns.
    const slot = (pid: string, n: number) => db(pid, 'SELECT 1 FROM worker_slots WHERE slot = $1 FOR UPDATE', { params: [n], rows: [{ '?column?': 1 }], rowsRead: true });
    const mine = slot('worker-1', 1);
    const theirs = slot('worker-2', 2);
    expect(firstUncheckedAct(bothAfter([theirs], db('worker-1', 'BEGIN'), mine, check, db('worker-1', INSERT_IGNORED), db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
    // At REPEATABLE READ the gate's statement took the snapshot before it waited: the check sees nothing newer.
    const note = db('worker-1', 'INSERT INTO receipt_notes (order_id) VALUES ($1)', { params: [1042], affected: 1 });
    expect(firstUncheckedAct(bothAfter([asWorker2(gate)], db('worker-1', 'BEGIN'), gate, check, note, db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
    expect(firstUncheckedAct(bothAfter([asWorker2(gate)], db('worker-1', 'BEGIN ISOLATION LEVEL REPEATABLE READ'), gate, check, note, db('worker-1', 'COMMIT'), send('worker-1')))).not.toBeNull();
  });

  test('a claim committed in one transaction, then a later one reads its row (a fencing token)', () => {
    const claim = read('worker-1', `UPDATE operations SET lease_until = now() WHERE op_key = $1 AND lease_until < now() RETURNING lease_until`, [{ lease_until: 't' }]);
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), claim, db('worker-1', 'COMMIT'), db('worker-1', 'BEGIN'), read('worker-1', SELECT, [{ mine: true }]), send('worker-1'), db('worker-1', 'COMMIT')))).toBeNull();
  });

  test('a session lock every worker takes, then a read under it, decides again after a read-only transaction', () => {
    const locked = db('worker-1', 'SELECT pg_try_advisory_lock(hashtext($1)) AS locked', { rows: [{ locked: true }], answerRead: true });
    const early = both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), locked, send('worker-1'));
    expect(firstUncheckedAct(early)).not.toBeNull();
    const reread = both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), locked, db('worker-1', SELECT), send('worker-1'));
    expect(firstUncheckedAct(reread)).toBeNull();
  });

  test("a plain INSERT into a claims table keyed on the delivery's order id and a literal", () => {
    const CLAIMS: UniqueKeys = new Map([['send_claims', [['order_id', 'kind']]]]);
    const delivered: Ev = { actor: 'queue', type: 'receive', target: 'worker-1', data: { messageId: 'm1', attempt: 1, body: { orderId: 1042 } } };
    const insert = (param: unknown) => db('worker-1', `INSERT INTO send_claims (order_id, kind, lease_until) VALUES ($1, 'receipt', now())`, { params: [param], affected: 1 });
    const run = (param: unknown) => firstUncheckedAct(trace(receive('worker-2'), asWorker2(insert(1042)), delivered, db('worker-1', 'BEGIN'), read('worker-1', SELECT), insert(param), db('worker-1', 'COMMIT'), send('worker-1'), ack('worker-1'), ack('worker-2')), false, new Map(), undefined, CLAIMS);
    expect(run(1042)).toBeNull();
    // A literal token of its own spliced into the text: no other worker ran that statement, so the key is not known to be shared.
    const token = db('worker-1', `INSERT INTO send_claims (order_id, kind, lease_until) VALUES ($1, 'tok-7f3a', now())`, { params: [1042], affected: 1 });
    expect(firstUncheckedAct(trace(receive('worker-2'), asWorker2(insert(1042)), delivered, db('worker-1', 'BEGIN'), read('worker-1', SELECT), token, db('worker-1', 'COMMIT'), send('worker-1'), ack('worker-1'), ack('worker-2')), false, new Map(), undefined, CLAIMS)).not.toBeNull();
    // Keyed on a value of its own (the worker's clock), every worker's INSERT goes through.
    expect(run(1_767_603_600_123)).not.toBeNull();
  });

  test('a DO block that claims and raises when it took nothing, and a function whose write answers true', () => {
    const doBlock = db('worker-1', `DO $c$ BEGIN INSERT INTO operations AS o (op_key) VALUES ('k') ON CONFLICT (op_key) DO UPDATE SET state = 'running' WHERE o.lease_until < now(); IF NOT FOUND THEN RAISE EXCEPTION 'taken'; END IF; END $c$`);
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), doBlock, db('worker-1', 'COMMIT'), send('worker-1')))).toBeNull();
    // A DO block that raises for another reason, or whose write always finds its row, decides nothing.
    for (const body of [
      `INSERT INTO operations (op_key) VALUES ('k') ON CONFLICT DO NOTHING;`,
      `INSERT INTO operations (op_key) VALUES ('k') ON CONFLICT DO NOTHING; IF current_setting('x') IS NULL THEN RAISE EXCEPTION 'no key'; END IF;`,
      `INSERT INTO operations (op_key) VALUES ('k') ON CONFLICT (op_key) DO UPDATE SET state = 'running'; IF NOT FOUND THEN RAISE EXCEPTION 'taken'; END IF;`,
    ]) {
      const quiet = db('worker-1', `DO $c$ BEGIN ${body} END $c$`);
      expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), quiet, db('worker-1', 'COMMIT'), send('worker-1'))), body).not.toBeNull();
    }
    const fn = (won: unknown) => read('worker-1', `SELECT claim_check($1) AS won\n;\nINSERT INTO operations AS o (op_key) VALUES (k) ON CONFLICT (op_key) DO UPDATE SET state = 'running' WHERE o.lease_until < now() RETURNING true`, [{ won }]);
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), fn(true), send('worker-1')))).toBeNull();
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), fn(null), send('worker-1')))).not.toBeNull();
    // A function that answers true whatever its write did.
    const always = read('worker-1', `SELECT claim_check($1) AS won\n;\nINSERT INTO operations (op_key) VALUES (k) ON CONFLICT DO NOTHING; SELECT true`, [{ won: true }]);
    expect(firstUncheckedAct(both(db('worker-1', 'BEGIN'), read('worker-1', SELECT), db('worker-1', 'COMMIT'), always, send('worker-1')))).not.toBeNull();
  });
});
