// expect: right
// kind: derived-key
// why: both INSERTs go through Promise.all on one client inside one transaction; node-postgres queues a client's queries and sends them one at a time in call order, so the outbox INSERT runs after the order's and its currval('orders_id_seq') is this order's id, and COMMIT writes both or neither.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const [inserted] = await Promise.all([
      client.query<{ id: number }>('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id', [order.customerId, order.totalCents]),
      client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', jsonb_build_object('orderId', currval('orders_id_seq')))`),
    ]);
    await client.query('COMMIT');
    return Number(inserted.rows[0].id);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
