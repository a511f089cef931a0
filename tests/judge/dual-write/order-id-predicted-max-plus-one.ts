// expect: wrong
// kind: result-ignored
// why: the outbox message names an order id guessed as max(id) + 1 before the INSERT instead of the id its RETURNING would give, and a sequence is not rolled back: after a rolled-back attempt the order gets the next number while the message announces the one that was never committed.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // The id the order is about to get, so both rows can be written back to back.
    const next = await client.query<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM orders');
    const orderId = Number(next.rows[0]!.id);
    await client.query('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2)', [order.customerId, order.totalCents]);
    await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    await client.query('COMMIT');
    client.release();
    return orderId;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
}
