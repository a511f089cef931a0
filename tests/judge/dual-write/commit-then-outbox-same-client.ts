// expect: wrong
// kind: outbox-outside-tx
// why: the order's transaction is committed before the outbox row is written on the same client in autocommit, so a crash between that COMMIT and the outbox INSERT leaves a saved order that no message ever announces.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const id = Number(rows[0].id);
    await client.query('COMMIT');
    // Same connection, so it is "the same transaction" as far as the shop is concerned.
    await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId: id })]);
    return id;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}
