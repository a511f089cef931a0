// expect: wrong
// kind: outbox-outside-tx
// why: the order and the outbox row each commit in a transaction of their own, so a crash after the first COMMIT leaves an order that is never announced.
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
  await withTransaction(env.db, (tx) =>
    tx.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId: id })]),
  );
  return id;
}
