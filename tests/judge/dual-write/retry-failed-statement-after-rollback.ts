// expect: wrong
// kind: outbox-outside-tx
// why: when a statement of the checkout fails with a deadlock (40P01) the transaction is rolled back and only the failed statement is retried in a new one, so a failed outbox INSERT is retried after the order row was rolled back: an outbox message for an order never saved, confirmed to the customer.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  const run = async (sql: string, params: unknown[]) => {
    try {
      return await client.query<{ id: number }>(sql, params);
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01') throw err;
      // deadlock victim: retry the statement that lost
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      return await client.query<{ id: number }>(sql, params);
    }
  };
  try {
    await client.query('BEGIN');
    const { rows } = await run('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id', [order.customerId, order.totalCents]);
    const orderId = Number(rows[0].id);
    await run(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    await client.query('COMMIT');
    return orderId;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
