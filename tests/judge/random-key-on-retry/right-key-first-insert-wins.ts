// expect: right
// kind: stored-key
// why: a random key is stored per order before its first use with INSERT … ON CONFLICT DO NOTHING, and the key actually used is always read back from the table, so every attempt and every rerun of the job uses the first stored key.
import { type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS pay_keys (order_id bigint PRIMARY KEY, k uuid NOT NULL)`);
  await env.db.query('INSERT INTO pay_keys (order_id, k) VALUES ($1, $2) ON CONFLICT (order_id) DO NOTHING', [order.id, env.random.uuid()]);
  const got = await env.db.query<{ k: string }>('SELECT k::text AS k FROM pay_keys WHERE order_id = $1', [order.id]);
  const key = got.rows[0].k;
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
