/**
 * The unique keys the overlap model reads from the database (simulations/lessons/kit/unique-keys.ts):
 * what makes a second worker's plain INSERT of the same key fail on PostgreSQL.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readUniqueKeys } from '../simulations/lessons/kit/unique-keys';

let pg: PGlite;
const db = { inspect: async (text: string) => (await pg.query<Record<string, unknown>>(text)).rows };

beforeAll(async () => {
  pg = await PGlite.create();
  await pg.exec(`
    CREATE TABLE claims (id bigserial PRIMARY KEY, order_id int NOT NULL, EXCLUDE USING btree (order_id WITH =));
    CREATE TABLE notes (id bigserial PRIMARY KEY, body text);
    CREATE TABLE runs (op_key text, worker text, UNIQUE (op_key, worker));
  `);
});
afterAll(() => pg.close());

test('primary keys, unique constraints and an exclusion constraint on equality alone', async () => {
  const keys = await readUniqueKeys(db);
  expect(keys.get('claims')).toEqual(expect.arrayContaining([['id'], ['order_id']]));
  expect(keys.get('notes')).toEqual([['id']]);
  expect(keys.get('runs')?.map((k) => [...k].sort())).toEqual([['op_key', 'worker']]);
});

test('an exclusion constraint with another operator than = is no unique key', async () => {
  await pg.exec(`CREATE TABLE slots (id bigserial PRIMARY KEY, during int4range, EXCLUDE USING gist (during WITH &&))`);
  expect((await readUniqueKeys(db)).get('slots')).toEqual([['id']]);
});
