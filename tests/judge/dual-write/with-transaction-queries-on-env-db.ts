// expect: wrong
// kind: pool-client-mixup
// why: withTransaction opens BEGIN on its client, but both INSERTs go through env.db, another pooled connection where each autocommits on its own; a crash between them leaves a committed order with no outbox row.
import { withTransaction, type Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  return withTransaction(env.db, async () => {
    const { rows } = await env.db.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const orderId = Number(rows[0].id);
    await env.db.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    return orderId;
  });
}
