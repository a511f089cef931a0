// expect: wrong
// kind: outbox-outside-tx
// why: it publishes straight after COMMIT instead of writing an outbox row, so a crash between the COMMIT and the publish loses the message for good.
import { withTransaction, type Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  const id = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    return Number(rows[0].id);
  });
  await env.queue.publish('order-placed', { orderId: id });
  return id;
}
