// expect: wrong
// kind: sql-newer-than-15
// why: the order's charge key is minted in the database with uuidv7() and stored before the first call, which is right on PostgreSQL 18, but PostgreSQL 15 has no uuidv7() and rejects the statement: checkout never charges the order.
import type { CheckoutOrder, Env } from 'effectively-once';

async function storedKey(order: CheckoutOrder, env: Env): Promise<string> {
  await env.db.query('CREATE TABLE IF NOT EXISTS charge_keys (order_id bigint PRIMARY KEY, idem_key text NOT NULL)');
  await env.db.query('INSERT INTO charge_keys (order_id, idem_key) VALUES ($1, uuidv7()::text) ON CONFLICT (order_id) DO NOTHING', [order.id]);
  const { rows } = await env.db.query<{ idem_key: string }>('SELECT idem_key FROM charge_keys WHERE order_id = $1', [order.id]);
  return rows[0]!.idem_key;
}

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = await storedKey(order, env);
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
