// expect: right
// kind: own-dedupe-table
// why: order and outbox row commit together; publishing straight after COMMIT and then deleting the outbox row is only a fast path: a crash before the delete leaves the row for the relay (a duplicate publish, which at-least-once allows), and nothing is published for an uncommitted order.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  let orderId: number;
  let outboxId: number;
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const o = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    orderId = Number(o.rows[0].id);
    const m = await client.query<{ id: number }>(
      `INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1) RETURNING id`,
      [JSON.stringify({ orderId })],
    );
    outboxId = Number(m.rows[0].id);
    await client.query('COMMIT');
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release(broken);
  }
  // Fast path: announce now instead of waiting for the relay's next poll.
  try {
    await env.queue.publish('order-placed', { orderId });
    await env.db.query('DELETE FROM outbox WHERE id = $1 AND published_at IS NULL', [outboxId]);
  } catch {
    // The relay will publish it.
  }
  return orderId;
}
