// expect: wrong
// kind: result-ignored
// why: a random key is stored with ON CONFLICT DO NOTHING, but the code charges with the UUID it just drew rather than the one stored, so the checkout restarted after a crash charges under a new key.
import type { CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS checkout_keys (order_id integer PRIMARY KEY, key text NOT NULL)');
  const key = env.random.uuid();
  await env.db.query('INSERT INTO checkout_keys (order_id, key) VALUES ($1, $2) ON CONFLICT (order_id) DO NOTHING', [order.id, key]);
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
