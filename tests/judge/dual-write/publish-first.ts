// expect: wrong
// kind: publish-before-commit
// why: the message goes out before the order is saved, so a crash between the two announces an order that does not exist.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  const next = await env.db.query<{ id: number }>(`SELECT nextval('orders_id_seq') AS id`);
  const id = Number(next.rows[0].id);
  await env.queue.publish('order-placed', { orderId: id });
  await env.db.query('INSERT INTO orders (id, customer_id, total_cents) VALUES ($1, $2, $3)', [id, order.customerId, order.totalCents]);
  return id;
}
