// expect: right
// kind: cte
// why: one transaction on one client inserts the order, keeps its id in a TEMP table created ON COMMIT DROP (private to this connection and gone at the end of the transaction, commit or rollback), and writes the outbox row from it; the order and its message commit together or not at all.
import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const client = await env.db.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query('CREATE TEMP TABLE new_order (id bigint NOT NULL) ON COMMIT DROP');
    await client.query(
      `WITH o AS (INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id)
       INSERT INTO new_order (id) SELECT id FROM o`,
      [order.customerId, order.totalCents],
    );
    await client.query(
      `INSERT INTO outbox (topic, payload) SELECT 'order-placed', jsonb_build_object('orderId', id) FROM new_order`,
    );
    const { rows } = await client.query<{ id: number }>('SELECT id FROM new_order');
    await client.query('COMMIT');
    return Number(rows[0].id);
  } catch (err) {
    await client.query('ROLLBACK').catch((e) => { broken = e instanceof Error ? e : new Error(String(e)); });
    throw err;
  } finally {
    client.release(broken);
  }
}
