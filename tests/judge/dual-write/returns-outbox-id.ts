// expect: wrong
// kind: wrong-key
// why: the order and its outbox row commit together, but the checkout answers with the id the outbox INSERT returned, not the order's; once a rolled-back attempt has burned an order id the two sequences drift and the customer is confirmed an order number that does not exist.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const placed = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const { rows } = await client.query<{ id: number }>(
      `INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1) RETURNING id`,
      [JSON.stringify({ orderId: Number(placed.rows[0].id) })],
    );
    await client.query('COMMIT');
    return rows[0].id;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
