// expect: right
// kind: stored-key
// why: the stored key is read first; when there is none a fresh UUID is offered with ON CONFLICT DO NOTHING and the key is read back, so every attempt and every restarted checkout charges under whichever key was stored first.
import type { CheckoutOrder, Env } from 'effectively-once';

async function storedKey(env: Env, orderId: number): Promise<string> {
  await env.db.query('CREATE TABLE IF NOT EXISTS checkout_keys (order_id integer PRIMARY KEY, key text NOT NULL)');
  const before = await env.db.query<{ key: string }>('SELECT key FROM checkout_keys WHERE order_id = $1', [orderId]);
  if (before.rows.length) return before.rows[0].key;
  await env.db.query('INSERT INTO checkout_keys (order_id, key) VALUES ($1, $2) ON CONFLICT (order_id) DO NOTHING', [orderId, env.random.uuid()]);
  const after = await env.db.query<{ key: string }>('SELECT key FROM checkout_keys WHERE order_id = $1', [orderId]);
  return after.rows[0].key;
}

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = await storedKey(env, order.id);
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
