/**
 * The one-round-trip statement runner answers exactly as `PGlite.query` does: same rows, same
 * affected-row counts, same errors, parameters serialized for the types Postgres inferred; and it
 * recovers when its prepared statements are dropped or their tables change under it.
 */
import { PGlite, parse as pgliteParse, protocol } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bindMessage, firstResult, PgliteStatements } from '../simulations/db/pglite-statements';

let pg: PGlite;
let statements: PgliteStatements;

beforeAll(async () => {
  pg = new PGlite();
  await pg.exec(`
    CREATE TABLE t (id int PRIMARY KEY, name text, data jsonb, at timestamptz, ok boolean, tags text[], big bigint);
    INSERT INTO t VALUES (1, 'one', '{"a":1}', '2026-01-05T09:00:00Z', true, '{x,y}', 9007199254740993);
  `);
  statements = new PgliteStatements(pg);
});
afterAll(() => pg.close());

/** Both ways from the same state (each rolled back), twice (the second time it is prepared already). */
async function both(text: string, params: unknown[] = []) {
  for (let i = 0; i < 2; i++) {
    await pg.exec('BEGIN');
    const expected = await pg.query(text, params);
    await pg.exec('ROLLBACK');
    await pg.exec('BEGIN');
    const got = await statements.query(text, params);
    await pg.exec('ROLLBACK');
    expect(got.rows, text).toEqual(expected.rows);
    expect(got.affectedRows, text).toBe(expected.affectedRows);
  }
}

async function errorOf(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (err) {
    const e = err as { message: string; code?: string; detail?: string; constraint?: string };
    return { message: e.message, code: e.code, detail: e.detail, constraint: e.constraint };
  }
  throw new Error('expected an error');
}

describe('same answers as PGlite.query', () => {
  test('reads, with parameters of every common type', async () => {
    await both('SELECT * FROM t WHERE id = $1', [1]);
    await both('SELECT $1::jsonb AS j, $2::timestamptz AS at, $3::boolean AS b, $4::text[] AS arr, $5::int8 AS n', [
      { nested: [1, 'two'] },
      new Date(Date.UTC(2026, 0, 5, 9, 30)),
      false,
      ['a', 'b,c'],
      12,
    ]);
    await both('SELECT $1::jsonb AS already_json', ['{"k":"v"}']);
    await both('SELECT name FROM t WHERE name = $1 OR $2::text IS NULL', ['nope', null]);
    await both('WITH x AS (SELECT 1 AS v) SELECT v FROM x');
  });

  test('writes report affected rows; RETURNING returns rows', async () => {
    await both(`INSERT INTO t (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, [2, 'two']);
    await both(`INSERT INTO t (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, [1, 'one again']);
    await both(`UPDATE t SET name = name WHERE id = ANY($1::int[])`, [[1, 2]]);
    await both(`INSERT INTO t (id, name, data) VALUES ($1, 'r', $2) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data RETURNING id, data`, [3, { r: true }]);
    await both(`DELETE FROM t WHERE id = $1`, [999]);
  });

  test('errors carry the same message, code and fields', async () => {
    const cases: [string, unknown[]][] = [
      ['INSERT INTO t (id, name) VALUES ($1, $2)', [1, 'dup']],
      ['SELECT nope FROM t', []],
      ['SELEC 1', []],
      ['SELECT $1::int', ['not a number']],
      ['SELECT 1', [1, 2]],
    ];
    for (const [text, params] of cases) {
      const expected = await errorOf(() => pg.query(text, params));
      expect(await errorOf(() => statements.query(text, params)), text).toEqual(expected);
      expect(await errorOf(() => statements.query(text, params)), `${text} (again)`).toEqual(expected);
    }
  });

  test('a script sent ahead runs first; its failure is the one reported', async () => {
    const got = await statements.query(`SELECT current_setting('eo.test', true) AS v`, [], `SELECT set_config('eo.test', 'set', false)`);
    expect(got.rows).toEqual([{ v: 'set' }]);
    await pg.exec('BEGIN');
    await errorOf(() => pg.query('SELECT 1/0'));
    const inAborted = await errorOf(() => statements.query('SELECT 1', [], `SELECT set_config('eo.test', 'again', false)`));
    expect(inAborted.code).toBe('25P02');
    await pg.exec('ROLLBACK');
  });

  test('a lead statement runs first in the same call, prepared once the statement is; same answers as its script', async () => {
    const setting = async () => (await pg.query<{ v: string }>(`SELECT current_setting('eo.lead', true) AS v`)).rows[0].v;
    const lead = (v: string) => ({ text: `SELECT set_config('eo.lead', $1, false)`, params: [v], script: `SELECT set_config('eo.lead', '${v}', false)` });
    const read = `SELECT current_setting('eo.lead', true) AS v, $1::int AS n`;
    for (let i = 1; i <= 3; i++) expect((await statements.query(read, [i], lead(`v${i}`))).rows).toEqual([{ v: `v${i}`, n: i }]);
    // A statement that fails outside a transaction keeps the lead's effect, as a script's would.
    const insert = 'INSERT INTO t (id, name) VALUES ($1, $2)';
    for (let i = 1; i <= 3; i++) {
      const expected = await errorOf(() => pg.query(insert, [1, 'dup']));
      expect(await errorOf(() => statements.query(insert, [1, 'dup'], lead(`failed${i}`)))).toEqual(expected);
      expect(await setting()).toBe(`failed${i}`);
    }
    // In a transaction both roll back together, as before.
    await pg.exec(`BEGIN`);
    expect((await statements.query(read, [7], lead('in-tx'))).rows).toEqual([{ v: 'in-tx', n: 7 }]);
    await pg.exec(`ROLLBACK`);
    expect(await setting()).toBe('failed3');
    // In an aborted transaction the lead's error is the one reported.
    await pg.exec('BEGIN');
    await errorOf(() => pg.query('SELECT 1/0'));
    expect((await errorOf(() => statements.query(read, [1], lead('aborted')))).code).toBe('25P02');
    await pg.exec('ROLLBACK');
    // Dropped behind our back (lead and statement): both prepared again, the lead still runs first.
    await pg.exec('DEALLOCATE ALL');
    expect((await statements.query(read, [8], lead('again'))).rows).toEqual([{ v: 'again', n: 8 }]);
    expect((await statements.query(read, [9], lead('again2'))).rows).toEqual([{ v: 'again2', n: 9 }]);
    // The others went too: forget them, as the engine's reset does.
    const { rows } = await pg.query<{ n: number }>(`SELECT ${statements.countSql} AS n`);
    await statements.verify(rows[0].n);
  });

  test('transaction commands and DDL run unnamed and are not remembered', async () => {
    const before = statements.preparedCount;
    await statements.query('BEGIN');
    await statements.query('CREATE TEMP TABLE scratch (v int)');
    await statements.query('ROLLBACK');
    expect(statements.preparedCount).toBe(before);
  });

  test('a parameterless unnamed statement sends the same bytes every time: Parse, Bind, Describe, Execute, Sync as PGlite writes them', async () => {
    const sent: Uint8Array[] = [];
    const spying = new PgliteStatements({
      query: pg.query.bind(pg),
      exec: pg.exec.bind(pg),
      execProtocol: pg.execProtocol.bind(pg),
      runExclusive: pg.runExclusive.bind(pg),
      execProtocolRawStream: (message, options) => {
        sent.push(message);
        return pg.execProtocolRawStream(message, options!);
      },
    });
    for (let i = 0; i < 3; i++) {
      await spying.query('BEGIN');
      expect((await spying.query('SELECT txid_current_if_assigned() IS NULL AS fresh')).rows).toEqual([{ fresh: true }]);
      await spying.query('ROLLBACK');
    }
    const { serialize } = protocol;
    const expected = (text: string) =>
      new Uint8Array([...serialize.parse({ text }), ...serialize.bind({ values: [] }), ...serialize.describe({ type: 'P' }), ...serialize.execute({}), ...serialize.sync()]);
    const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
    expect(sent.filter((m) => same(m, expected('BEGIN')))).toHaveLength(3);
    expect(sent.filter((m) => same(m, expected('ROLLBACK')))).toHaveLength(3);
  });
});

describe('two runners on one PGlite', () => {
  test('do not share statement names, and forgetting is per runner', async () => {
    const other = new PgliteStatements(pg);
    await statements.query('SELECT 1 AS a');
    await other.query('SELECT 2 AS b');
    expect((await statements.query('SELECT 1 AS a')).rows).toEqual([{ a: 1 }]);
    expect((await other.query('SELECT 2 AS b')).rows).toEqual([{ b: 2 }]);
    const mine = statements.preparedCount;
    await other.forgetAll();
    const { rows } = await pg.query<{ n: number }>(`SELECT ${statements.countSql} AS n`);
    expect(rows[0].n).toBe(mine);
  });
});

describe('prepared statements that went away (outside a transaction: inside one, the engine verifies before each run)', () => {
  test('after DEALLOCATE ALL the statement is prepared again', async () => {
    await both('SELECT name FROM t WHERE id = $1', [1]);
    await pg.exec('DEALLOCATE ALL');
    expect((await statements.query('SELECT name FROM t WHERE id = $1', [1])).rows).toEqual([{ name: 'one' }]);
  });

  test('after a column is added, SELECT * sees it', async () => {
    expect((await statements.query('SELECT * FROM t WHERE id = $1', [1])).rows[0]).not.toHaveProperty('extra');
    await pg.exec('ALTER TABLE t ADD COLUMN extra text DEFAULT $$e$$');
    const rows = (await statements.query('SELECT * FROM t WHERE id = $1', [1])).rows;
    expect(rows[0]).toMatchObject({ id: 1, extra: 'e' });
  });

  test('verify() forgets everything when the server lost statements', async () => {
    await statements.query('SELECT 1 AS one');
    expect(statements.preparedCount).toBeGreaterThan(0);
    await pg.exec('DISCARD ALL');
    const { rows } = await pg.query<{ n: number }>(`SELECT ${statements.countSql} AS n`);
    await statements.verify(rows[0].n);
    expect(statements.preparedCount).toBe(0);
    expect((await statements.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});

describe('Bind messages', () => {
  test('byte for byte those of PGlite\'s serializer (property: any strings and nulls, any names)', () => {
    const value = fc.oneof(fc.constant(null), fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }));
    fc.assert(
      fc.property(fc.oneof(fc.constant('eo1_2'), fc.string()), fc.array(value, { maxLength: 6 }), (name, values) => {
        expect(bindMessage(name, values)).toEqual(protocol.serialize.bind({ statement: name, values }));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('first result', () => {
  test('the same rows, affected rows and row count as PGlite\'s parseResults', async () => {
    const texts = [
      'SELECT * FROM t',
      'SELECT 1 AS a, 2 AS a, NULL::int AS b, 3 AS "1", \'x\' AS "0"',
      `SELECT '{"k":[1,2]}'::jsonb AS j, ARRAY[1,2] AS arr, now() AS at, 1.5::numeric AS n, 9007199254740993::int8 AS big, true AS ok, '\\x0102'::bytea AS bin, '2026-01-05'::date AS d`,
      'SELECT 1 WHERE false',
      'INSERT INTO t (id, name) VALUES (40, \'forty\'), (41, \'forty-one\')',
      'UPDATE t SET name = name WHERE id >= 40',
      'DELETE FROM t WHERE id >= 40 RETURNING id',
      'BEGIN',
      'ROLLBACK',
      'SELECT 1 AS x; SELECT 2 AS y',
      'SELECT 1 AS "__proto__"',
    ];
    const { serialize } = protocol;
    for (const text of texts) {
      const message = new Uint8Array([...serialize.query(text)]);
      const { messages } = await pg.execProtocol(message, { throwOnError: false });
      const expected = pgliteParse.parseResults(messages as never, pg.parsers as never)[0];
      const got = firstResult(null, messages as never, pg.parsers as never);
      if (text.includes('__proto__')) expect(got, text).toBeNull();
      else expect(got, text).toEqual({ rows: expected.rows, affectedRows: expected.affectedRows, rowCount: (expected as { rowCount?: number }).rowCount ?? null });
      if (got) expect(got.rows.map((r) => Object.keys(r)), text).toEqual(expected.rows.map((r) => Object.keys(r as object)));
    }
    expect(firstResult(null, [], pg.parsers as never)).toEqual({ rows: [], affectedRows: 0, rowCount: null });
  });
});
