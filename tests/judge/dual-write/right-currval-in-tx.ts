// expect: right
// kind: derived-key
// why: the order and its outbox row are written in one transaction on one client, the outbox payload taking the new id from currval('orders_id_seq'), which is per session and so always this INSERT's id: both rows commit together or neither does.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2)', [order.customerId, order.totalCents]);
    const { rows } = await client.query<{ id: number }>(
      `INSERT INTO outbox (topic, payload)
       VALUES ('order-placed', jsonb_build_object('orderId', currval('orders_id_seq')))
       RETURNING (payload->>'orderId')::bigint AS id`,
    );
    await client.query('COMMIT');
    return Number(rows[0].id);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
