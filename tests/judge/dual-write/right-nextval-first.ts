// expect: right
// kind: stored-key
// why: the order's id is drawn from its sequence first (a gap if nothing follows is harmless), then the order row with that id and its outbox row are written in one transaction on one client, so both commit together or neither does.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const next = await env.db.query<{ id: string }>(`SELECT nextval('orders_id_seq') AS id`);
  const orderId = Number(next.rows[0].id);
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO orders (id, customer_id, total_cents) VALUES ($1, $2, $3)', [orderId, order.customerId, order.totalCents]);
    await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    await client.query('COMMIT');
    return orderId;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
