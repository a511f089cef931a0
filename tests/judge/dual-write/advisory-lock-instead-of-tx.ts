// expect: wrong
// kind: outbox-outside-tx
// why: an advisory lock keeps other checkouts out but makes nothing atomic: the order and the outbox row are still two autocommit statements, so a crash between them leaves a saved order that is never announced.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('SELECT pg_advisory_lock(42)');
    try {
      const { rows } = await client.query<{ id: number }>(
        'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
        [order.customerId, order.totalCents],
      );
      const orderId = Number(rows[0].id);
      await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
      return orderId;
    } finally {
      await client.query('SELECT pg_advisory_unlock(42)');
    }
  } finally {
    client.release();
  }
}
