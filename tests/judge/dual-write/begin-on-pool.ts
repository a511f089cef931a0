// expect: wrong
// kind: pool-client-mixup
// why: BEGIN through the pool runs on whichever connection is free, so the two INSERTs are not in that transaction at all (and the lab refuses it: the checkout fails every time).
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  await env.db.query('BEGIN');
  const { rows } = await env.db.query<{ id: number }>(
    'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
    [order.customerId, order.totalCents],
  );
  const id = Number(rows[0].id);
  await env.db.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId: id })]);
  await env.db.query('COMMIT');
  return id;
}
