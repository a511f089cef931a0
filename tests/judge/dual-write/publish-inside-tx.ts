// expect: wrong
// kind: publish-before-commit
// why: the message is published inside the transaction, before COMMIT, so a crash after the publish rolls the order back and the world hears of an order that never committed.
import { withTransaction, type Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const id = Number(rows[0].id);
    await env.queue.publish('order-placed', { orderId: id });
    return id;
  });
}
