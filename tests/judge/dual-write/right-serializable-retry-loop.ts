// expect: right
// kind: derived-key
// why: the order and its outbox row are written in one SERIALIZABLE transaction on one client (the outbox row takes the id from the order's INSERT … RETURNING), retried from the top on a serialization failure; a failed attempt is rolled back whole, so both rows commit together or neither does.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  for (let attempt = 1; ; attempt++) {
    const client = await env.db.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      const placed = await client.query<{ id: number }>(
        'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
        [order.customerId, order.totalCents],
      );
      const id = Number(placed.rows[0]!.id);
      await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1::jsonb)`, [JSON.stringify({ orderId: id })]);
      await client.query('COMMIT');
      client.release();
      return id;
    } catch (err) {
      // Closing the connection rolls back whatever the attempt left open.
      client.release(err as Error);
      const code = (err as { code?: string }).code;
      if (code !== '40001' || attempt === 3) throw err;
    }
  }
}
