// expect: wrong
// kind: outbox-outside-tx
// why: BEGIN is sent after the order's INSERT, which therefore commits on its own; only the outbox row is in the transaction, so a crash between the two leaves a committed order no message announces, and the retried checkout places a second one.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    const { rows } = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const orderId = Number(rows[0]!.id);
    await client.query('BEGIN');
    await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    await client.query('COMMIT');
    client.release();
    return orderId;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
}
