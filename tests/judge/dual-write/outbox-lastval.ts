// expect: wrong
// kind: wrong-key
// why: lastval() is evaluated in the outbox INSERT after that row's own id default has drawn from outbox_id_seq, so the message names the outbox row's id, not the order's; once a rolled-back attempt has burned an order id, the message announces an order that does not exist and the real one is never announced.
import { withTransaction, type Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  return withTransaction(env.db, async (tx) => {
    await tx.query('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2)', [order.customerId, order.totalCents]);
    const { rows } = await tx.query<{ order_id: number }>(
      `INSERT INTO outbox (topic, payload) VALUES ('order-placed', jsonb_build_object('orderId', lastval()))
       RETURNING (payload->>'orderId')::bigint AS order_id`,
    );
    return Number(rows[0].order_id);
  });
}
