// expect: right
// kind: stored-key
// why: the order and its outbox row are written in one transaction on one client, and a NOTIFY in the same transaction only wakes a listening relay (PostgreSQL delivers it at COMMIT, and drops it on rollback): the outbox row is still what gets published, so both rows commit together or neither does.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const orderId = Number(rows[0].id);
    await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    // Wake the relay now instead of at its next poll; sent only if we commit.
    await client.query(`SELECT pg_notify('outbox', $1)`, [String(orderId)]);
    await client.query('COMMIT');
    return orderId;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
