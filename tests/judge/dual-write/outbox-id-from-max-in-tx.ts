// expect: wrong
// kind: wrong-key
// why: the order and its outbox row share one transaction, but the message's order id is read back as max(id) FROM orders after the INSERT; under READ COMMITTED that statement also sees orders other checkouts committed meanwhile with higher ids, so with two shops placing orders at once one order is announced twice and another never.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2)', [order.customerId, order.totalCents]);
    // "the newest order is the one we just wrote"
    const { rows } = await client.query<{ id: number }>('SELECT max(id) AS id FROM orders');
    const orderId = Number(rows[0].id);
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
