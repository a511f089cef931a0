// expect: wrong
// kind: pool-client-mixup
// why: BEGIN and both INSERTs run on the checked-out client, but COMMIT is sent through env.db.query, which on pg.Pool is another connection with no transaction in progress: the client goes back to the pool idle in transaction and the order and its message never commit, though the customer is told the order was placed.
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
    await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [JSON.stringify({ orderId })]);
    await env.db.query('COMMIT');
    return orderId;
  } finally {
    client.release();
  }
}
