// expect: wrong
// kind: pool-client-mixup
// why: the order and the outbox row are written on two clients checked out of the pool, each its own connection, so BEGIN … COMMIT on the first does not cover the second: a crash before COMMIT leaves an outbox row for an order that was rolled back.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  const orders = await env.db.connect();
  const outbox = await env.db.connect();
  try {
    await orders.query('BEGIN');
    const { rows } = await orders.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const orderId = Number(rows[0].id);
    await outbox.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    await orders.query('COMMIT');
    return orderId;
  } catch (err) {
    await orders.query('ROLLBACK');
    throw err;
  } finally {
    outbox.release();
    orders.release();
  }
}
