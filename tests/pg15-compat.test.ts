/**
 * SQL that PostgreSQL 15, the course's standard, rejects fails in the tab too (PGlite is
 * PostgreSQL 18), with 15's message, inside the database so a transaction around it is aborted;
 * SQL 15 accepts is left alone, the lessons' own included.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { pg15Refusal, raising } from '../simulations/db/pg15-compat';
import { LESSONS } from '../simulations/lessons/index';
import { readCorpus } from '../scripts/judge-corpus';
import { simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();

describe('what PostgreSQL 15 rejects', () => {
  test.each([
    ['SELECT uuidv7()', /function uuidv7\(\) does not exist/],
    ["INSERT INTO k (id) VALUES (uuidv4()::text)", /uuidv4/],
    ['SELECT any_value(state) FROM operations', /any_value/],
    ['SELECT random(1, 10)', /random\(integer, integer\)/],
    ["MERGE INTO operations o USING (VALUES ($1::text)) AS s(k) ON o.op_key = s.k WHEN NOT MATCHED THEN INSERT (op_key) VALUES (s.k) RETURNING o.op_key", /near "RETURNING"/],
    ['MERGE INTO a USING b ON a.id = b.id WHEN NOT MATCHED BY SOURCE THEN DELETE', /near "BY"/],
    ['UPDATE outbox SET published_at = now() WHERE id = 1 RETURNING old.published_at', /table "old"/],
    ["SELECT '{}' IS JSON", /near "JSON"/],
    ['SELECT id FROM (SELECT id FROM outbox WHERE published_at IS NULL FOR UPDATE SKIP LOCKED) ORDER BY id', /subquery in FROM must have an alias/],
    ['SELECT * FROM (SELECT 1)', /subquery in FROM/],
    ['SELECT * FROM (VALUES (1), (2))', /VALUES in FROM must have an alias/],
    ['SELECT * FROM outbox o JOIN (SELECT id FROM outbox) ON true', /subquery in FROM/],
    ["SELECT now() + 60_000 * interval '1 millisecond'", /trailing junk after numeric literal at or near "60_"/],
    ['SELECT 0x1F', /near "0x"/],
    ["SELECT JSON_OBJECT('orderId': id) FROM orders", /near ":"/],
    ["SELECT json_object('orderId' VALUE id) FROM orders", /near "VALUE"/],
    ['SELECT json_array(1, 2)', /json_array/],
    ["SELECT json_value(payload, '$.orderId') FROM outbox", /json_value/],
    ["SELECT (due_at AT LOCAL)::date FROM reminders", /near "LOCAL"/],
    ['CREATE TABLE claims (k text, day date GENERATED ALWAYS AS (k::date), UNIQUE (day))', /near ","/],
    ['ALTER TABLE claims ADD COLUMN d date GENERATED ALWAYS AS (now()::date) VIRTUAL', /near "VIRTUAL"/],
    ['SELECT erf(0.5)', /erf/],
    // In the body of code the statement defines, nested ones too.
    ["CREATE FUNCTION jitter() RETURNS int LANGUAGE plpgsql AS $fn$ BEGIN RETURN random(60, 70); END $fn$", /random\(integer, integer\)/],
    ["DO $i$ BEGIN CREATE FUNCTION k() RETURNS text LANGUAGE sql AS $fn$ SELECT uuidv7()::text $fn$; END $i$", /uuidv7/],
  ])('%s', (sql, message) => {
    expect(pg15Refusal(sql)?.message).toMatch(message);
  });

  test.each([
    'SELECT gen_random_uuid()',
    'SELECT random()',
    "SELECT 'uuidv7()' AS name -- uuidv7( in a comment\n",
    'SELECT "uuidv7"(1)',
    'SELECT s.random_normal(1) FROM s',
    'SELECT id FROM (SELECT id FROM outbox FOR UPDATE SKIP LOCKED) AS batch ORDER BY id',
    'SELECT id FROM (SELECT id FROM outbox) batch WHERE id > 1',
    'SELECT * FROM (VALUES (1)) v(a)',
    'SELECT id FROM (SELECT id FROM outbox) "Batch"',
    'DELETE FROM outbox WHERE id IN (SELECT id FROM outbox LIMIT 2) RETURNING id',
    "MERGE INTO a USING b ON a.id = b.id WHEN MATCHED THEN UPDATE SET v = b.v WHEN NOT MATCHED THEN INSERT (id, v) VALUES (b.id, b.v)",
    'UPDATE outbox o SET published_at = now() FROM (SELECT id FROM outbox) AS new WHERE o.id = new.id RETURNING new.id',
    "SELECT $$ FROM (SELECT 1) $$",
    "INSERT INTO notes (body) VALUES ($$ SELECT uuidv7() $$)",
    "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT (random() * 10)::int $$",
    // A trigger's OLD and NEW are its row variables: RETURNING before a NEW.x elsewhere is 15's too.
    "CREATE FUNCTION enq() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE n int; BEGIN UPDATE counters SET c = c + 1 WHERE k = 'x' RETURNING c INTO n; INSERT INTO outbox (topic, payload) VALUES ('o', to_jsonb(NEW.id)); RETURN NULL; END $$",
    "INSERT INTO operations (op_key, state) VALUES ($1, 'running') ON CONFLICT (op_key) DO UPDATE SET state = EXCLUDED.state RETURNING op_key",
    "SELECT json_object('{orderId, 1042}'), json_build_object('orderId', id), payload::jsonb FROM outbox",
    'SELECT json_object(array_agg(key), array_agg(value)) FROM settings',
    'SELECT json_object(k[1:2], v[1:2]), json_object(keys, value), json_object(value ::text[]) FROM t',
    "SELECT col_1_000, t2.x_0x FROM t2 WHERE v = '60_000' AND w = 1e5 AND q = $1",
    "SELECT due_at AT TIME ZONE 'Europe/Berlin' FROM reminders",
    'CREATE TABLE claims (k text, day text GENERATED ALWAYS AS (upper(k)) STORED, id int GENERATED ALWAYS AS IDENTITY)',
  ])('%s is left alone', (sql) => {
    expect(pg15Refusal(sql)).toBeNull();
  });

  test("no lesson's starter, solution or library code, and no right fix of the judge's exam, says anything 15 rejects", () => {
    const sources = [
      ...LESSONS.flatMap((l) => [l.variants.starter.code, l.variants.solution.code]),
      readFileSync(new URL('../lib/consumer.ts', import.meta.url), 'utf8'),
      readFileSync(new URL('../lib/outbox.ts', import.meta.url), 'utf8'),
      ...readCorpus().filter((e) => e.expect === 'right').map((e) => e.code),
    ];
    // Every template literal and string that reads as SQL.
    const statements = sources.flatMap((src) => [...src.matchAll(/`([^`]*)`|'((?:SELECT|INSERT|UPDATE|DELETE|WITH|MERGE)[^']*)'/g)].map((m) => m[1] ?? m[2]!));
    expect(statements.length).toBeGreaterThan(200);
    expect(statements.filter((s) => pg15Refusal(s.replace(/\$\{[^}]*\}/g, 'x')) !== null)).toEqual([]);
  });
});

test('in the database: the statement fails with 15 words and aborts the transaction around it, as on 15', async () => {
  const refusal = pg15Refusal('SELECT uuidv7()')!;
  const pg = sim.pg;
  await pg.exec('BEGIN');
  await expect(pg.query(raising(refusal))).rejects.toThrow(/function uuidv7\(\) does not exist \(PostgreSQL 15/);
  await expect(pg.query('SELECT 1')).rejects.toThrow(/current transaction is aborted/);
  await pg.exec('ROLLBACK');
  expect((await pg.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
});
