import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const { rows } = await env.db.query<{ id: number }>(
    'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
    [order.customerId, order.totalCents],
  );
  await env.queue.publish('order-placed', { orderId: rows[0].id });   // a second, separate write
  return rows[0].id;
}
