// expect: wrong
// kind: outbox-outside-tx
// why: the outbox INSERT is not awaited inside the transaction: node-postgres still sends it before the COMMIT, but if it fails nothing sees the error, the COMMIT of the aborted transaction rolls the order back too, and the caller is given the id of an order that was never saved (and Node stops on the unhandled rejection).
import { withTransaction, type Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const orderId = Number(rows[0].id);
    void tx.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    return orderId;
  });
}
