// expect: wrong
// kind: outbox-outside-tx
// why: the order and its outbox row are two autocommit statements, so a crash between them leaves a saved order that is never announced.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  const { rows } = await env.db.query<{ id: number }>(
    'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
    [order.customerId, order.totalCents],
  );
  const id = Number(rows[0].id);
  await env.db.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId: id })]);
  return id;
}
