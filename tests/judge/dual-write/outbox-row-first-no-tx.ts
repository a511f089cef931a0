// expect: wrong
// kind: outbox-outside-tx
// why: the outbox row is written first, on its own, with the id the order will get, so a crash before the order INSERT publishes an order that never existed.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  const next = await env.db.query<{ id: number }>(`SELECT nextval('orders_id_seq') AS id`);
  const id = Number(next.rows[0].id);
  await env.db.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId: id })]);
  await env.db.query('INSERT INTO orders (id, customer_id, total_cents) VALUES ($1, $2, $3)', [id, order.customerId, order.totalCents]);
  return id;
}
