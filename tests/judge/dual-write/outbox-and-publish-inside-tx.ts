// expect: wrong
// kind: publish-before-commit
// why: besides the outbox row it also publishes straight away "to be fast", before COMMIT, so a crash after that publish announces an order that was rolled back.
import { withTransaction, type Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const id = Number(rows[0].id);
    await tx.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId: id })]);
    await env.queue.publish('order-placed', { orderId: id });
    return id;
  });
}
