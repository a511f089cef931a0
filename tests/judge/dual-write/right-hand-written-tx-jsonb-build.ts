// expect: right
// kind: cte
// why: a hand-written transaction helper (BEGIN, COMMIT, ROLLBACK on any error, release with the error) runs the order INSERT … RETURNING id and an outbox INSERT whose payload jsonb_build_object builds in SQL from that id, both on the same client, so the order and its message commit together or not at all, and a failed statement or crash leaves neither.
import type { DbClient, Env } from 'effectively-once';

async function transaction<T>(env: Env, work: (c: DbClient) => Promise<T>): Promise<T> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const value = await work(client);
    await client.query('COMMIT');
    client.release();
    return value;
  } catch (err) {
    let broken: Error | undefined;
    try {
      await client.query('ROLLBACK');
    } catch (e) {
      broken = e instanceof Error ? e : new Error(String(e));
    }
    client.release(broken);
    throw err;
  }
}

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  return transaction(env, async (c) => {
    const { rows } = await c.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const id = rows[0]!.id;
    await c.query(
      `INSERT INTO outbox (topic, payload) VALUES ('order-placed', jsonb_build_object('orderId', $1::bigint))`,
      [id],
    );
    return id;
  });
}
