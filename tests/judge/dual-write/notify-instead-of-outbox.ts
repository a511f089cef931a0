// expect: wrong
// kind: outbox-outside-tx
// why: the order and a pg_notify('order-placed', …) go in one transaction, and NOTIFY is delivered only on COMMIT, but nothing stores it: a listener that is not connected at that moment (a relay restarting, or polling the outbox as this one does) never hears of the order, which is saved and never announced.
import type { Env } from 'effectively-once';

type NewOrder = { customerId: string; totalCents: number };

export async function placeOrder(order: NewOrder, env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const orderId = Number(rows[0].id);
    // NOTIFY is transactional: it goes out on COMMIT, or never.
    await client.query(`SELECT pg_notify('order-placed', $1)`, [JSON.stringify({ orderId })]);
    await client.query('COMMIT');
    return orderId;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
