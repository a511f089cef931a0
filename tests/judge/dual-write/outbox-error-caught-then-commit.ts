// expect: wrong
// kind: outbox-outside-tx
// why: a failed outbox INSERT (40P01) is caught and logged without a savepoint, so the transaction is already aborted and COMMIT silently rolls the order back too, while placeOrder returns the id as if the order were saved.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const orderId = Number(rows[0].id);
    try {
      await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    } catch (err) {
      // don't fail the checkout over the notification: the order is what matters
      env.log('outbox insert failed, order still placed', String(err));
    }
    await client.query('COMMIT');
    return orderId;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}
