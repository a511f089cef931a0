/**
 * The learner's own SQL functions, seen through (simulations/lessons/kit/learner-functions.ts):
 * the rules that read statements judge a call with the function's body beside it.
 */
import { describe, expect, test } from 'vitest';
import { withBodies, withLearnerFunctions, withViews } from '../simulations/lessons/kit/learner-functions';
import type { TraceEvent } from '../simulations/engine/types';
import { simDbPerFile } from './helpers/sim-db';
import { lockBesideRows, lockOnlyGates, rowLockCoversOutbox, waitsWithoutRecheck } from '../simulations/lessons/kit/relay-locks';

const sim = simDbPerFile();

describe('withBodies', () => {
  const functions = new Map([
    ['claim_batch', 'UPDATE outbox SET published_at = now() WHERE id IN (SELECT id FROM outbox FOR UPDATE SKIP LOCKED) RETURNING id'],
    ['lock_op', 'SELECT take_lock(k)'],
    ['take_lock', 'SELECT pg_advisory_xact_lock(hashtext(k))'],
  ]);

  test('a call gets the body after it, and a body\'s calls theirs', () => {
    expect(withBodies('SELECT * FROM claim_batch($1)', functions)).toContain('FOR UPDATE SKIP LOCKED');
    const nested = withBodies('SELECT lock_op($1)', functions);
    expect(nested).toContain('SELECT take_lock(k)');
    expect(nested).toContain('pg_advisory_xact_lock(hashtext(k))');
  });

  test('a name in a string, a comment, a column or another schema\'s function is no call', () => {
    for (const sql of ["SELECT 'claim_batch(1)'", 'SELECT 1 -- claim_batch(2)', 'SELECT claim_batch FROM t', 'SELECT other.xclaim_batch(1)']) {
      expect(withBodies(sql, functions), sql).toBe(sql);
    }
  });
});

describe('withLearnerFunctions', () => {
  let i = 0;
  const db = (sql: string): TraceEvent => ({ i: i++, t: 0, step: 0, actor: 'relay-1', type: 'db', text: sql, data: { sql, params: [], rows: [] } }) as TraceEvent;

  test('reads the bodies from the database when the run created a function, and leaves the trace alone when it did not', async () => {
    await sim.db.reset();
    const create = "CREATE FUNCTION mark_batch(n int) RETURNS SETOF bigint LANGUAGE sql AS $fn$ UPDATE outbox SET published_at = now() WHERE id IN (SELECT id FROM outbox LIMIT n FOR UPDATE SKIP LOCKED) RETURNING id $fn$";
    await sim.db.query('relay-1', create, [], 0);
    const call = db('SELECT * FROM mark_batch(2)');
    const seen = await withLearnerFunctions([db(create), call], sim.db);
    expect(String((seen[1]!.data as { sql: string }).sql)).toMatch(/FOR UPDATE SKIP LOCKED/);
    expect(String((call.data as { sql: string }).sql)).toBe('SELECT * FROM mark_batch(2)');
    const untouched = [db('SELECT * FROM mark_batch(2)')];
    expect(await withLearnerFunctions(untouched, sim.db)).toBe(untouched);
    await sim.db.reset();
  });

  test('a view the run created is read as its query: what FROM the view reads and locks is the outbox underneath', async () => {
    await sim.db.reset();
    const create = 'CREATE VIEW pending AS SELECT id, topic, payload FROM outbox WHERE published_at IS NULL';
    await sim.db.query('relay-1', create, [], 0);
    const read = db('SELECT id FROM pending ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED');
    const seen = await withLearnerFunctions([db(create), read], sim.db);
    const sql = String((seen[1]!.data as { sql: string }).sql);
    expect(sql).toMatch(/^SELECT id FROM \(SELECT[\s\S]*FROM outbox[\s\S]*\) AS pending ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED$/);
    await sim.db.reset();
  });
});

describe('withViews', () => {
  const views = new Map([['pending', 'SELECT id FROM outbox WHERE published_at IS NULL']]);
  test('FROM and JOIN of a view, schema-qualified or not; a string, a column or another table is left alone', () => {
    expect(withViews('SELECT * FROM public.pending p JOIN pending q ON p.id = q.id', views)).toBe(
      'SELECT * FROM (SELECT id FROM outbox WHERE published_at IS NULL) AS pending p JOIN (SELECT id FROM outbox WHERE published_at IS NULL) AS pending q ON p.id = q.id',
    );
    for (const sql of ["SELECT 'FROM pending'", 'SELECT pending FROM t', 'SELECT * FROM pending_rows']) expect(withViews(sql, views), sql).toBe(sql);
  });
});

describe('a row lock named on a view', () => {
  test('FOR UPDATE OF a view (read as its query) or of a subquery over the outbox covers the outbox rows; OF another subquery does not', () => {
    const views = new Map([['pending', 'SELECT outbox.id, outbox.topic FROM outbox WHERE (outbox.published_at IS NULL)']]);
    const read = withViews('SELECT id, topic FROM pending ORDER BY id LIMIT 2 FOR UPDATE OF pending SKIP LOCKED', views);
    expect(rowLockCoversOutbox(read)).toBe(true);
    expect(rowLockCoversOutbox('SELECT * FROM (SELECT id FROM outbox WHERE published_at IS NULL) "Batch" FOR UPDATE OF "Batch"')).toBe(true);
    // The outbox joined to another table, or after a comma in the FROM list, under its alias.
    expect(rowLockCoversOutbox('SELECT o.* FROM orders ord JOIN outbox o ON o.id = ord.id FOR UPDATE OF o SKIP LOCKED')).toBe(true);
    expect(rowLockCoversOutbox('SELECT o.* FROM orders ord, outbox o WHERE o.id = ord.id FOR UPDATE OF o SKIP LOCKED')).toBe(true);
    expect(rowLockCoversOutbox('SELECT o.* FROM orders ord, outbox o WHERE o.id = ord.id FOR UPDATE OF ord')).toBe(false);
    expect(rowLockCoversOutbox('SELECT * FROM (SELECT id FROM orders) o JOIN outbox x ON x.id = o.id FOR UPDATE OF o')).toBe(false);
    expect(rowLockCoversOutbox('SELECT * FROM outbox x FOR UPDATE OF x')).toBe(true);
  });
});

describe('lockOnlyGates', () => {
  const lockBatch = 'WITH locked AS (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED) ';
  test('a FOR UPDATE read only inside EXISTS decides whether rows come back, not which', () => {
    expect(lockOnlyGates(`${lockBatch}SELECT o.* FROM outbox o WHERE o.published_at IS NULL AND EXISTS (SELECT 1 FROM locked) LIMIT 2`)).toBe(true);
    expect(lockOnlyGates('SELECT * FROM outbox WHERE published_at IS NULL AND EXISTS (SELECT 1 FROM outbox x WHERE x.published_at IS NULL FOR UPDATE SKIP LOCKED) LIMIT 2')).toBe(true);
  });
  test('a lock whose rows are the ones returned is no gate', () => {
    expect(lockOnlyGates(`${lockBatch}SELECT o.* FROM outbox o JOIN locked USING (id)`)).toBe(false);
    expect(lockOnlyGates(`${lockBatch}SELECT * FROM outbox WHERE id IN (SELECT id FROM locked)`)).toBe(false);
    // Read both as the rows and in an EXISTS: the rows are the locked ones.
    expect(lockOnlyGates(`${lockBatch}SELECT * FROM locked WHERE EXISTS (SELECT 1 FROM locked)`)).toBe(false);
    // An EXISTS tied to the outer rows by id is a semi-join on them.
    expect(lockOnlyGates(`${lockBatch}SELECT o.* FROM outbox o WHERE EXISTS (SELECT 1 FROM locked l WHERE l.id = o.id)`)).toBe(false);
    expect(lockOnlyGates('SELECT o.* FROM outbox o WHERE o.published_at IS NULL AND EXISTS (SELECT 1 FROM outbox l WHERE l.id = o.id AND l.published_at IS NULL FOR UPDATE SKIP LOCKED) LIMIT 2')).toBe(false);
    expect(lockOnlyGates('SELECT * FROM outbox WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL FOR UPDATE SKIP LOCKED)')).toBe(false);
    expect(lockOnlyGates('SELECT * FROM outbox WHERE published_at IS NULL FOR UPDATE SKIP LOCKED')).toBe(false);
    expect(lockOnlyGates('SELECT * FROM outbox WHERE published_at IS NULL')).toBe(false);
  });
});

describe('lockBesideRows', () => {
  const head = 'WITH head AS (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) ';
  test('the outbox read beside a locking WITH query, not tied to its rows by id', () => {
    expect(lockBesideRows(`${head}SELECT o.id, o.payload FROM outbox o, head WHERE o.id >= head.id AND o.published_at IS NULL ORDER BY o.id LIMIT 2`)).toBe(true);
    expect(lockBesideRows(`${head}SELECT o.* FROM outbox o CROSS JOIN head h WHERE o.id > h.id - 1 LIMIT 2`)).toBe(true);
  });
  test('tied by id, read from the WITH query itself, or locked at the top', () => {
    expect(lockBesideRows(`${head}SELECT o.* FROM outbox o JOIN head h ON h.id = o.id`)).toBe(false);
    expect(lockBesideRows(`${head}SELECT o.* FROM outbox o, head WHERE o.id = head.id`)).toBe(false);
    expect(lockBesideRows(`${head}SELECT o.* FROM outbox o JOIN head USING (id)`)).toBe(false);
    expect(lockBesideRows(`${head}SELECT * FROM outbox WHERE id IN (SELECT id FROM head)`)).toBe(false);
    expect(lockBesideRows(`${head}SELECT * FROM head`)).toBe(false);
    // Tied under other names and forms: a renamed column, a column list, ANY(ARRAY(…)), NATURAL JOIN.
    const renamed = 'WITH l AS (SELECT id AS outbox_id FROM outbox WHERE published_at IS NULL LIMIT 2 FOR UPDATE SKIP LOCKED) ';
    expect(lockBesideRows(`${renamed}SELECT o.* FROM outbox o JOIN l ON o.id = l.outbox_id`)).toBe(false);
    expect(lockBesideRows('WITH locked(lid) AS (SELECT id FROM outbox WHERE published_at IS NULL LIMIT 2 FOR UPDATE SKIP LOCKED) SELECT o.* FROM outbox o, locked WHERE locked.lid = o.id')).toBe(false);
    expect(lockBesideRows(`${head}SELECT o.* FROM outbox o WHERE o.id = ANY(ARRAY(SELECT id FROM head))`)).toBe(false);
    expect(lockBesideRows(`${head}SELECT * FROM outbox NATURAL JOIN head`)).toBe(false);
    expect(lockBesideRows(`${head}SELECT o.* FROM outbox o WHERE EXISTS (SELECT 1 FROM head h WHERE h.id = o.id)`)).toBe(false);
    expect(lockBesideRows('WITH c AS (SELECT id FROM outbox WHERE published_at IS NULL) SELECT o.* FROM outbox o JOIN c ON c.id = o.id FOR UPDATE OF o SKIP LOCKED')).toBe(false);
    expect(lockBesideRows(`${head}UPDATE outbox o SET published_at = now() FROM head WHERE o.id >= head.id RETURNING o.id`)).toBe(false);
  });
});

describe('waitsWithoutRecheck', () => {
  test('a waiting FOR UPDATE whose own WHERE does not re-check published_at returns what the other relay published', () => {
    expect(waitsWithoutRecheck('SELECT id, payload FROM outbox WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2) ORDER BY id FOR UPDATE')).toBe(true);
    expect(waitsWithoutRecheck('SELECT o.id FROM outbox o WHERE o.id = ANY($1) FOR UPDATE')).toBe(true);
  });
  test('one that returns published_at, or every column, leaves the code a way to skip what was published', () => {
    expect(waitsWithoutRecheck('SELECT id, payload, published_at FROM outbox WHERE id = ANY($1) FOR UPDATE')).toBe(false);
    expect(waitsWithoutRecheck('SELECT * FROM outbox WHERE id = ANY($1) FOR UPDATE')).toBe(false);
  });
  test('re-checked in its own WHERE (under the alias too), or not waiting, it does not', () => {
    expect(waitsWithoutRecheck('SELECT id, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE')).toBe(false);
    expect(waitsWithoutRecheck('SELECT o.id FROM outbox o WHERE o.id IN (SELECT id FROM outbox LIMIT 2) AND o.published_at IS NULL FOR UPDATE')).toBe(false);
    expect(waitsWithoutRecheck('SELECT id FROM outbox WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL LIMIT 2) FOR UPDATE SKIP LOCKED')).toBe(false);
    expect(waitsWithoutRecheck('SELECT id FROM outbox WHERE id = ANY($1) FOR UPDATE NOWAIT')).toBe(false);
    expect(waitsWithoutRecheck('SELECT id FROM outbox WHERE published_at IS NULL')).toBe(false);
  });
});
