/**
 * What a process's connections are in the simulator, against what they are on pg.Pool: each
 * process has one session, so two of its clients, or a session lock and its unlock through the
 * pool, cannot be kept apart as PostgreSQL would. The code that relies on them being apart (or on
 * their being the same) is refused with why, at the statement, as a pool query inside a client's
 * transaction already is.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { usesSessionAdvisory } from '../simulations/db/advisory-locks';
import { runScenario } from '../simulations/run/run';
import { LESSONS } from '../simulations/lessons/index';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();
const lesson = (id: string) => LESSONS.find((l) => l.id === id)!;

async function errorsOf(lessonId: string, code: string): Promise<{ messages: string[]; failures: number; hint: string }> {
  const r = await runScenario(sim.db, { scenario: lesson(lessonId), code, variant: 'custom', seed: 1, faults: [] });
  return { messages: r.codeErrors.map((c) => c.message), failures: r.codeErrors.filter((c) => c.failure).length, hint: replayHint(r) };
}

describe('which statements take or let go of a session-level advisory lock', () => {
  test.each([
    'SELECT pg_advisory_lock(42)',
    'SELECT pg_try_advisory_lock(hashtext($1)) AS got',
    'select pg_catalog.pg_advisory_unlock(1, 2)',
    'SELECT pg_advisory_lock_shared($1)',
    'SELECT pg_advisory_unlock_all()',
  ])('%s', (sql) => expect(usesSessionAdvisory(sql)).toBe(true));

  test.each([
    'SELECT pg_advisory_xact_lock(42)',
    'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got',
    "SELECT 'pg_advisory_lock(1)' AS text",
    '-- pg_advisory_lock(1)\nSELECT 1',
    'SELECT my_pg_advisory_lock(1)',
  ])('not: %s', (sql) => expect(usesSessionAdvisory(sql)).toBe(false));
});

describe('refused, with why', () => {
  test('a second client writing while the first holds the transaction (dual-write/two-clients)', async () => {
    const got = await errorsOf('dual-write', readFileSync(new URL('./judge/dual-write/two-clients.ts', import.meta.url), 'utf8'));
    expect(got.messages.some((m) => /a query on a second client while another client of this process holds a transaction open/.test(m)), got.hint).toBe(true);
    expect(got.failures, got.hint).toBeGreaterThan(0);
  });

  test('a session lock and its unlock through env.db.query (concurrent-redelivery/session-lock-through-pool)', async () => {
    const got = await errorsOf('concurrent-redelivery', readFileSync(new URL('./judge/concurrent-redelivery/session-lock-through-pool.ts', import.meta.url), 'utf8'));
    expect(got.messages.some((m) => /a session-level advisory lock or unlock through env\.db\.query/.test(m)), got.hint).toBe(true);
    expect(got.failures, got.hint).toBeGreaterThan(0);
  });
});

describe('not refused', () => {
  test('a pool query before the client begins, the whole transaction on that client, ROLLBACK in the catch (dual-write/right-nextval-first)', async () => {
    const got = await errorsOf('dual-write', readFileSync(new URL('./judge/dual-write/right-nextval-first.ts', import.meta.url), 'utf8'));
    expect(got.messages, got.hint).toEqual([]);
  });

  test('two clients one after the other: the second starts after the first committed', async () => {
    const code = `
      export async function placeOrder(order, env) {
        const a = await env.db.connect();
        let orderId;
        try {
          await a.query('BEGIN');
          const { rows } = await a.query('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id', [order.customerId, order.totalCents]);
          orderId = Number(rows[0].id);
          await a.query("INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)", [JSON.stringify({ orderId })]);
          await a.query('COMMIT');
        } finally {
          a.release();
        }
        const b = await env.db.connect();
        try {
          await b.query('SELECT 1 FROM orders WHERE id = $1', [orderId]);
        } finally {
          b.release();
        }
        return orderId;
      }`;
    const got = await errorsOf('dual-write', code);
    expect(got.messages, got.hint).toEqual([]);
  });

  test('a session lock taken, used and let go on one client', async () => {
    const code = `
      import { opKey } from 'effectively-once';
      export async function handleMessage(msg, env) {
        const key = opKey('receipt-email', { orderId: msg.orderId });
        const c = await env.db.connect();
        try {
          await c.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
          try {
            const seen = await c.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
            if (seen.rows.length === 0) {
              await env.email.send({ to: msg.customer, orderId: msg.orderId });
              await c.query("INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())", [key]);
            }
          } finally {
            await c.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
          }
        } finally {
          c.release();
        }
        return 'ack';
      }`;
    const got = await errorsOf('concurrent-redelivery', code);
    expect(got.messages, got.hint).toEqual([]);
  });
});
