// expect: right
// kind: cte
// why: inside one transaction the outbox row is written by INSERT … SELECT from the order row this transaction just inserted (found by its returned id), so the order and its message commit together or not at all.
import { withTransaction, type Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const id = Number(rows[0].id);
    await tx.query(
      `INSERT INTO outbox (topic, payload)
       SELECT 'order-placed', jsonb_build_object('orderId', o.id) FROM orders o WHERE o.id = $1`,
      [id],
    );
    return id;
  });
}
