// expect: wrong
// kind: outbox-outside-tx
// why: the outbox INSERT runs under a savepoint and any error in it is rolled back to the savepoint and swallowed, so the transaction commits the order without its outbox row whenever that INSERT fails (a bad payload, a constraint, a statement timeout): a saved order that is never announced.
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
    // The message is best effort: never lose the customer's order because of it.
    await client.query('SAVEPOINT outbox');
    try {
      await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
      await client.query('RELEASE SAVEPOINT outbox');
    } catch (err) {
      await client.query('ROLLBACK TO SAVEPOINT outbox');
      env.log(`outbox row not written: ${String(err)}`);
    }
    await client.query('COMMIT');
    return orderId;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
