/**
 * The engine's reading of learner SQL (simulations/sql-words.ts): time keywords put on the
 * simulated clock, and transactions refused on the pool's `query`. Checked as text, against
 * PostgreSQL's own meaning of the keywords, and in runs.
 */
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { onSimulatedClock } from '../simulations/db/sql-clock-words';
import { sqlAsRun, sqlWithoutComments, sqlWords, transactionBoundary, transactionControl, withoutUnusedCtes } from '../simulations/db/sql-words';
import { runScenario } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { isParked } from '../simulations/db/port';
import { SIM_EPOCH_MS } from '../simulations/engine/sim-time';
import { replayHint, simDbPerFile } from './helpers/sim-db';

describe('onSimulatedClock', () => {
  test.each([
    ['SELECT CURRENT_TIMESTAMP', 'SELECT (now()::timestamptz)'],
    ['select current_timestamp(3), localtimestamp (0)', 'select (now()::timestamptz(3)), (now()::timestamp(0))'],
    ['WHERE due < CURRENT_DATE - 1', 'WHERE due < (now()::date) - 1'],
    ['SELECT CURRENT_TIME, LOCALTIME(2)', 'SELECT (now()::timetz), (now()::time(2))'],
    ["UPDATE t SET lease_until = CURRENT_TIMESTAMP + interval '60 seconds' WHERE lease_until < CURRENT_TIMESTAMP", "UPDATE t SET lease_until = (now()::timestamptz) + interval '60 seconds' WHERE lease_until < (now()::timestamptz)"],
    ["UPDATE t SET lease_until = 'now'::timestamptz + interval '60 seconds' WHERE lease_until < 'NOW' :: timestamptz", "UPDATE t SET lease_until = (now()::text)::timestamptz + interval '60 seconds' WHERE lease_until < (now()::text) :: timestamptz"],
    ["SELECT CAST('today' AS date), timestamptz 'now', date'tomorrow'", "SELECT CAST(((now()::date)::text) AS date), ((now()::text)::timestamptz), (((now()::date + 1)::text)::date)"],
    ["SELECT timestamp(0) with time zone 'yesterday'", "SELECT (((now()::date - 1)::text)::timestamp(0) with time zone)"],
  ])('%s', (sql, expected) => {
    expect(onSimulatedClock(sql)).toBe(expected);
  });

  test.each([
    "SELECT 'CURRENT_TIMESTAMP'",
    "SELECT 'it''s CURRENT_DATE'",
    "SELECT E'\\' CURRENT_DATE'",
    'SELECT "current_date" FROM t',
    'SELECT t.current_date, t . localtime FROM t',
    'SELECT 1 -- CURRENT_TIMESTAMP\n',
    'SELECT /* CURRENT_DATE /* nested */ LOCALTIME */ 1',
    'SELECT $$CURRENT_DATE$$, $fn$ LOCALTIME $fn$',
    'SELECT now(), clock_timestamp(), current_timestamp_x, my_current_date',
    'SELECT $1::date',
    // 'now' as data, not cast to a time.
    "INSERT INTO notes (word) VALUES ('now'), ('today')",
    "SELECT 'now' || 'x', E'now'::text",
    "SELECT x AS date, 'now' FROM t",
    "SELECT 1 FROM t WHERE word = 'now' OR word <> 'now' OR p->>'now' = 'x' OR a <@ 'now'",
    // A bare 'now' takes the other side's type (a date's midnight, a time, an instant): no one rewrite means all three.
    "SELECT 1 FROM t WHERE lease_until < 'now' AND due_on >= 'now'",
  ])('leaves %s alone', (sql) => {
    expect(onSimulatedClock(sql)).toBe(sql);
  });

  test.each([
    [
      "CREATE FUNCTION f() RETURNS timestamptz LANGUAGE sql SET search_path = '' AS $$ SELECT now() + interval '1 s' $$",
      "CREATE FUNCTION f() RETURNS timestamptz LANGUAGE sql SET search_path = '' AS $$ SELECT sim.now() + interval '1 s' $$",
    ],
    [
      "DO $i$ BEGIN CREATE OR REPLACE FUNCTION g() RETURNS void LANGUAGE plpgsql AS $fn$ BEGIN PERFORM CURRENT_TIMESTAMP, pg_catalog.now(), clock_timestamp(), 'now()'; END $fn$; END $i$",
      "DO $i$ BEGIN CREATE OR REPLACE FUNCTION g() RETURNS void LANGUAGE plpgsql AS $fn$ BEGIN PERFORM (sim.now()::timestamptz), sim.now(), sim.clock_timestamp(), 'now()'; END $fn$; END $i$",
    ],
    ['DO $$ BEGIN PERFORM now(); END $$', 'DO $$ BEGIN PERFORM sim.now(); END $$'],
    // Dollar-quoted data is no code.
    ['INSERT INTO notes (body) VALUES ($$ now() $$)', 'INSERT INTO notes (body) VALUES ($$ now() $$)'],
  ])('a body of code it defines: %s', (sql, expected) => {
    expect(onSimulatedClock(sql)).toBe(expected);
  });

  test('SQL without a time keyword comes back unchanged, whatever it holds', () => {
    const part = fc.oneof(
      fc.constantFrom('SELECT', ' ', '\n', 'now()', '$1', '$$', '$x$', "'", "''", '"', '--', '/*', '*/', 'E', '.', '(', ')', ',', 'x', 'current_', 'date', 'time'),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 30 }), (parts) => {
        const sql = parts.join('');
        fc.pre(!/current_(timestamp|date|time)\b|localtime/i.test(sql) && !/'\s*now\s*'/i.test(sql));
        // Code a statement defines (DO, CREATE FUNCTION) has its bodies' clock calls named in `sim`.
        fc.pre(!['do', 'create'].includes(sqlWords(sql)[0]?.text.toLowerCase() ?? ''));
        expect(onSimulatedClock(sql)).toBe(sql);
      }),
    );
  });

  test('the rewritten keywords mean what PostgreSQL means by them: the transaction start, as now() gives it', async () => {
    const pg = new PGlite();
    try {
      const keywords = ['CURRENT_TIMESTAMP', 'CURRENT_TIMESTAMP(2)', 'LOCALTIMESTAMP', 'LOCALTIMESTAMP(0)', 'CURRENT_DATE', 'CURRENT_TIME', 'CURRENT_TIME(1)', 'LOCALTIME', 'LOCALTIME(3)',
        "'now'::timestamptz", "'now'::timestamp", "'now'::date", "'now'::time", "CAST('now' AS timestamptz)", "timestamptz 'now'", "'today'::timestamptz",
        "'tomorrow'::date", "'yesterday'::timestamp", "date 'today'", "timestamp with time zone 'tomorrow'"];
      await pg.exec("SET TIME ZONE 'America/New_York'");
      await pg.exec('BEGIN');
      for (const k of keywords) {
        const { rows } = await pg.query<{ same: boolean; t: string }>(`SELECT ${k} IS NOT DISTINCT FROM ${onSimulatedClock(k)} AS same, pg_typeof(${onSimulatedClock(k)})::text AS t`);
        expect(rows[0], k).toMatchObject({ same: true });
        const { rows: original } = await pg.query<{ t: string }>(`SELECT pg_typeof(${k})::text AS t`);
        expect(rows[0].t, k).toBe(original[0].t);
      }
      await pg.exec('COMMIT');
    } finally {
      await pg.close();
    }
  });
});

describe('transactionControl', () => {
  test.each([
    ['BEGIN', 'BEGIN'],
    ['  begin isolation level serializable', 'begin'],
    ['/* go */ -- now\nCOMMIT', 'COMMIT'],
    ['START TRANSACTION', 'START'],
    ['ROLLBACK TO SAVEPOINT a', 'ROLLBACK'],
    ['SAVEPOINT a', 'SAVEPOINT'],
    ['RELEASE SAVEPOINT a', 'RELEASE'],
    ['END', 'END'],
    ['ABORT', 'ABORT'],
    ["PREPARE TRANSACTION 'x'", 'PREPARE'],
  ])('%s is transaction control', (sql, word) => {
    expect(transactionControl(sql)).toBe(word);
  });

  test.each(['SELECT 1', "INSERT INTO t VALUES ('BEGIN')", 'START_X', 'PREPARE q AS SELECT 1', 'WITH begin AS (SELECT 1) SELECT * FROM begin', ''])('%s is not', (sql) => {
    expect(transactionControl(sql)).toBeNull();
  });

  test('the lexer finds words only outside strings and comments', () => {
    expect(sqlWords(`SELECT 'a b' AS "c d", x -- e\n/* f */ FROM $q$ g $q$`).map((w) => w.text)).toEqual(['SELECT', 'AS', 'x', 'FROM']);
  });
});

describe('transactionBoundary', () => {
  test.each([
    ['BEGIN', 'begin'],
    ['/* go */ start transaction isolation level serializable', 'begin'],
    ['COMMIT', 'end'],
    ['END', 'end'],
    ['ABORT', 'end'],
    ['ROLLBACK', 'end'],
    ['-- undo\nrollback work', 'end'],
    ['ROLLBACK TO SAVEPOINT a', null],
    ['rollback to a', null],
    ['ROLLBACK WORK TO SAVEPOINT a', null],
    ['ROLLBACK TRANSACTION TO a', null],
    ['SAVEPOINT a', null],
    ['RELEASE SAVEPOINT a', null],
    ['SELECT 1', null],
  ])('%s', (sql, boundary) => {
    expect(transactionBoundary(sql)).toBe(boundary);
  });
});

describe('in a run', () => {
  const sim = simDbPerFile();

  test('ROLLBACK TO SAVEPOINT keeps the process inside its transaction; COMMIT ends it', async () => {
    await sim.db.reset();
    for (const [sql, open] of [['BEGIN', true], ['SAVEPOINT s', true], ['SELECT 1', true], ['ROLLBACK TO SAVEPOINT s', true], ['/* done */ COMMIT', false]] as const) {
      const got = await sim.db.query('p', sql, [], SIM_EPOCH_MS);
      if (isParked(got)) throw new Error('parked');
      expect(sim.db.inTransaction('p'), sql).toBe(open);
    }
  });

  test('clock_timestamp(), statement_timestamp() and transaction_timestamp() read the simulated clock, as now() does', async () => {
    await sim.db.reset();
    const at = SIM_EPOCH_MS + 90_000;
    const got = await sim.db.query('p', 'SELECT now() AS now, clock_timestamp() AS c, statement_timestamp() AS s, transaction_timestamp() AS t', [], at);
    if (isParked(got)) throw new Error('parked');
    const row = got.rows[0] as Record<string, Date>;
    for (const k of ['now', 'c', 's', 't']) expect(row[k].getTime(), k).toBe(at);
    // Each on its own, at a later moment: the clock must be moved for a statement naming only it.
    for (const [k, fn] of [['c', 'clock_timestamp'], ['s', 'statement_timestamp'], ['t', 'transaction_timestamp']] as const) {
      const later = at + 1_000 * (1 + ['c', 's', 't'].indexOf(k));
      const alone = await sim.db.query('p', `SELECT ${fn}() AS ${k}`, [], later);
      if (isParked(alone)) throw new Error('parked');
      expect((alone.rows[0] as Record<string, Date>)[k].getTime(), fn).toBe(later);
    }
  });

  test("a function the learner created reads the simulated clock, with CURRENT_TIMESTAMP and under search_path = '', when a plain SELECT calls it", async () => {
    await sim.db.reset();
    for (const ddl of [
      "CREATE FUNCTION lease_end() RETURNS timestamptz LANGUAGE plpgsql AS $$ BEGIN RETURN CURRENT_TIMESTAMP + interval '60 seconds'; END $$",
      "CREATE FUNCTION hardened_clock() RETURNS timestamptz LANGUAGE sql SET search_path = '' AS $$ SELECT now() $$",
    ]) {
      const made = await sim.db.query('p', onSimulatedClock(ddl), [], SIM_EPOCH_MS);
      if (isParked(made)) throw new Error('parked');
    }
    // Later than every statement before, which moved the clock: a call of the learner's function must move it again.
    const at = SIM_EPOCH_MS + 5 * 60_000;
    const got = await sim.db.query('p', onSimulatedClock('SELECT lease_end() AS l, hardened_clock() AS h'), [], at);
    if (isParked(got)) throw new Error('parked');
    const row = got.rows[0] as { l: Date; h: Date };
    expect(row.l.getTime()).toBe(at + 60_000);
    expect(row.h.getTime()).toBe(at);
  });

  test("once the learner's code defined a trigger or a view, an UPDATE that fires it and a SELECT that reads it see the simulated clock", async () => {
    await sim.db.reset();
    const run = async (sql: string, at: number) => {
      const got = await sim.db.query('p', onSimulatedClock(sql), [], at);
      if (isParked(got)) throw new Error('parked');
      return got.rows as Record<string, unknown>[];
    };
    await run('CREATE TABLE leases (k text PRIMARY KEY, until timestamptz)', SIM_EPOCH_MS);
    await run("CREATE FUNCTION stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.until := now() + interval '60 seconds'; RETURN NEW; END $$", SIM_EPOCH_MS);
    await run('CREATE TRIGGER stamp BEFORE INSERT OR UPDATE ON leases FOR EACH ROW EXECUTE FUNCTION stamp()', SIM_EPOCH_MS);
    await run('CREATE VIEW live AS SELECT k FROM leases WHERE until > now()', SIM_EPOCH_MS);
    await run("INSERT INTO leases (k) VALUES ('x')", SIM_EPOCH_MS);
    const later = SIM_EPOCH_MS + 10 * 60_000;
    expect(await run('SELECT k FROM live', later)).toEqual([]);
    await run("UPDATE leases SET k = 'x' WHERE k = 'x'", later);
    expect(((await run('SELECT until FROM leases', later))[0]!.until as Date).getTime()).toBe(later + 60_000);
    await sim.db.reset();
  });

  test('pg_catalog.now(), a qualified clock_timestamp() and timeofday() read the simulated clock too', async () => {
    await sim.db.reset();
    const at = SIM_EPOCH_MS + 15 * 3_600_000 + 59 * 60_000;
    const got = await sim.db.query('p', onSimulatedClock('SELECT pg_catalog.now() AS q, PG_CATALOG . clock_timestamp() AS c, timeofday() AS d'), [], at);
    if (isParked(got)) throw new Error('parked');
    const row = got.rows[0] as { q: Date; c: Date; d: string };
    expect(row.q.getTime()).toBe(at);
    expect(row.c.getTime()).toBe(at);
    const iso = new Date(at).toISOString();
    expect(row.d).toContain(`${iso.slice(11, 19)}.000000 ${iso.slice(0, 4)}`);
    expect(onSimulatedClock('SELECT my_schema.now(), "pg_catalog".now()')).toBe('SELECT my_schema.now(), "pg_catalog".now()');
  });

  test('SET TRANSACTION right after BEGIN works once the clock has moved: moving it is no query of the transaction', async () => {
    await sim.db.reset();
    let at = SIM_EPOCH_MS + 42_000;
    for (const sql of ['SELECT now()', 'BEGIN', 'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE']) {
      const r = await sim.db.query('p', sql, [], (at += 1_000));
      expect(isParked(r), sql).toBe(false);
    }
    const level = await sim.db.query('p', 'SELECT current_setting(\'transaction_isolation\') AS level, now() AS now', [], at + 1_000);
    if (isParked(level)) throw new Error('parked');
    expect(level.rows[0]).toMatchObject({ level: 'serializable' });
    expect((level.rows[0] as { now: Date }).now.getTime()).toBe(at - 1_000);
    await sim.db.query('p', 'COMMIT', [], at + 2_000);
  });

  // The lease-expiry fix written with CURRENT_TIMESTAMP, as a learner might: before, its leases
  // were stamped with the machine's clock (8,000 h past the simulated one), never expired, and the
  // same seed gave a different trace each run.
  const CURRENT_TIMESTAMP_FIX = `import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const claimed = await env.db.query(
    \`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', CURRENT_TIMESTAMP + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = CURRENT_TIMESTAMP + interval '60 seconds'
       WHERE operations.state <> 'done' AND operations.lease_until < CURRENT_TIMESTAMP
     RETURNING op_key\`,
    [key],
  );
  if (claimed.rows.length === 0) {
    const row = await env.db.query('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
`;

  test('a lease written with CURRENT_TIMESTAMP runs on simulated time: it expires, and the run repeats exactly', async () => {
    const scenario = lessonById('lease-expiry');
    const run = () => runScenario(sim.db, { scenario, code: CURRENT_TIMESTAMP_FIX, variant: 'current-timestamp', seed: scenario.demo.seed });
    const first = await run();
    expect(first.invariants.filter((i) => !i.held), replayHint(first)).toEqual([]);
    const second = await run();
    expect(second.traceHash).toBe(first.traceHash);
    // The trace keeps the SQL as the learner wrote it.
    expect(first.trace.some((e) => String((e.data as { sql?: unknown } | undefined)?.sql ?? '').includes('CURRENT_TIMESTAMP'))).toBe(true);
  });

  // dual-write's fix with the transaction on the pool's query: on a real pg.Pool each statement may
  // take another connection, so this does not do what it says (in the simulation it did).
  const placeOrder = (db: string, release: string) => `import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  ${db}
  try {
    await tx.query('BEGIN');
    const { rows } = await tx.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    await tx.query("INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)", [JSON.stringify({ orderId: rows[0].id })]);
    await tx.query('COMMIT');
    return rows[0].id;
  } finally {
    ${release}
  }
}
`;

  test('BEGIN through env.db.query fails at its step and says why; on a client from connect() it runs', async () => {
    const scenario = lessonById('dual-write');
    const r = await runScenario(sim.db, { scenario, code: placeOrder('const tx = env.db;', ''), variant: 'begin-on-pool', seed: scenario.demo.seed });
    expect(r.codeErrors.length, replayHint(r)).toBeGreaterThan(0);
    expect(r.codeErrors[0].message).toMatch(/^Error: BEGIN through env\.db\.query: like pg\.Pool's query/);
    expect(r.codeErrors[0].line).toBe(6);
    expect(r.trace.some((e) => e.type === 'db-error' && /BEGIN through env\.db\.query/.test(e.text))).toBe(true);
    const client = await runScenario(sim.db, { scenario, code: placeOrder('const tx = await env.db.connect();', 'tx.release();'), variant: 'begin-on-client', seed: scenario.demo.seed });
    expect(client.codeErrors, replayHint(client)).toEqual([]);
    expect(client.invariants.filter((i) => !i.held), replayHint(client)).toEqual([]);
  });
});

describe('sqlWithoutComments', () => {
  const blank = (sql: string, comment: string) => sql.replace(comment, comment.replace(/[^\n]/g, ' '));
  test.each([
    ['SELECT 1 -- FOR UPDATE', '-- FOR UPDATE'],
    ['SELECT /* a /* nested */ note */ 1', '/* a /* nested */ note */'],
    ['-- head\nSELECT 1', '-- head'],
  ])('%j', (sql, comment) => expect(sqlWithoutComments(sql)).toBe(blank(sql, comment)));

  test.each([["SELECT '-- not a comment', \"a--b\" FROM t"], ['SELECT $$ -- kept $$'], ['SELECT 1']])('%j keeps its strings as written', (sql) =>
    expect(sqlWithoutComments(sql)).toBe(sql));
});

describe('withoutUnusedCtes', () => {
  test('drops a query in WITH that nothing reads, and keeps what is read, data-modifying ones and unreadable WITHs', () => {
    const lock = 'WITH claimed AS (SELECT id FROM outbox WHERE published_at IS NULL FOR UPDATE SKIP LOCKED) ';
    expect(withoutUnusedCtes(`${lock}SELECT id, payload FROM outbox WHERE published_at IS NULL`)).toBe('SELECT id, payload FROM outbox WHERE published_at IS NULL');
    expect(withoutUnusedCtes(`${lock}SELECT o.* FROM outbox o JOIN claimed c ON c.id = o.id`)).toBe(`${lock}SELECT o.* FROM outbox o JOIN claimed c ON c.id = o.id`);
    expect(withoutUnusedCtes('WITH turn AS (SELECT pg_advisory_xact_lock(1)), m AS (UPDATE outbox SET published_at = now() RETURNING id) SELECT id FROM m')).toBe(
      'WITH m AS (UPDATE outbox SET published_at = now() RETURNING id) SELECT id FROM m',
    );
    // Read only by a query that is itself never read.
    expect(withoutUnusedCtes('with a as (select 1), b as (select * from a) select 2')).toBe('select 2');
    expect(withoutUnusedCtes('WITH d AS (DELETE FROM outbox RETURNING id) SELECT 1')).toBe('WITH d AS (DELETE FROM outbox RETURNING id) SELECT 1');
    // A name in a string or a comment is no reader; an unbalanced WITH is left as it is.
    expect(withoutUnusedCtes("WITH t AS (SELECT 1) SELECT 't'")).toBe("SELECT 't'");
    expect(withoutUnusedCtes('WITH t AS (SELECT (1) SELECT 2')).toBe('WITH t AS (SELECT (1) SELECT 2');
    expect(withoutUnusedCtes('SELECT 1')).toBe('SELECT 1');
  });

  test('sqlAsRun: the statement without its comments and without the WITH queries nothing reads', () => {
    // A comment that names the query in WITH reads nothing: the lock is still never taken.
    expect(sqlAsRun('WITH turn AS (SELECT pg_advisory_xact_lock(1)) /* FROM turn */ SELECT 1').trim()).toBe('SELECT 1');
    expect(sqlAsRun('WITH turn AS (SELECT pg_advisory_xact_lock(1) AS l) SELECT 1 FROM turn -- the lock')).toContain('pg_advisory_xact_lock(1)');
  });

  test("PostgreSQL's own rule: a query in WITH that nothing reads never runs, so its lock is never taken", async () => {
    const pg = await PGlite.create();
    try {
      expect((await pg.query('WITH t AS (SELECT 1 / 0) SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
      await expect(pg.query('WITH t AS (SELECT 1 / 0 AS x) SELECT x FROM t')).rejects.toThrow(/division by zero/);
      const advisory = "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()";
      await pg.query('BEGIN');
      await pg.query('WITH turn AS (SELECT pg_advisory_xact_lock(7)) SELECT 1');
      expect((await pg.query<{ n: number }>(advisory)).rows[0]!.n).toBe(0);
      await pg.query('WITH turn AS (SELECT pg_advisory_xact_lock(7) AS l) SELECT 1 FROM turn');
      expect((await pg.query<{ n: number }>(advisory)).rows[0]!.n).toBe(1);
      await pg.query('COMMIT');
    } finally {
      await pg.close();
    }
  });
});
