/**
 * The one-round-trip statement runner answers exactly as `PGlite.query` does: same rows, same
 * affected-row counts, same errors, parameters serialized for the types Postgres inferred; and it
 * recovers when its prepared statements are dropped or their tables change under it.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PgliteStatements } from '../simulations/pglite-statements';

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

  test('transaction commands and DDL run unnamed and are not remembered', async () => {
    const before = statements.preparedCount;
    await statements.query('BEGIN');
    await statements.query('CREATE TEMP TABLE scratch (v int)');
    await statements.query('ROLLBACK');
    expect(statements.preparedCount).toBe(before);
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
