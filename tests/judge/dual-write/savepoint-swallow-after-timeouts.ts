// expect: wrong
// kind: outbox-outside-tx
// why: the transaction first sets its lock and statement timeouts and looks up the customer's last order, then writes the order and, under a savepoint, the outbox row, rolling back to the savepoint and carrying on when that INSERT fails ("the order matters more than the message"): a lock timeout or deadlock on the outbox INSERT commits a saved order that is never announced.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = '2s'`);
    await client.query(`SET LOCAL statement_timeout = '5s'`);
    const last = await client.query('SELECT id FROM orders WHERE customer_id = $1 ORDER BY id DESC LIMIT 1', [order.customerId]);
    if (last.rows.length) env.log(`returning customer, last order ${String(last.rows[0].id)}`);
    const { rows } = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const orderId = Number(rows[0].id);
    await client.query('SAVEPOINT outbox_row');
    try {
      await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
      await client.query('RELEASE SAVEPOINT outbox_row');
    } catch (err) {
      env.log(`outbox row failed, order kept: ${(err as Error).message}`);
      await client.query('ROLLBACK TO SAVEPOINT outbox_row');
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
