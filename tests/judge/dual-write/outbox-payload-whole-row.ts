// expect: wrong
// kind: result-ignored
// why: the outbox row is written in the order's transaction, but its payload carries the whole returned row ({ id }) as orderId instead of the id, so the message the relay publishes names no order and the placed order is never announced as itself.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId: rows[0] })]);
    await client.query('COMMIT');
    return Number(rows[0].id);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
