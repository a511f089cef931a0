// expect: wrong
// kind: wrong-key
// why: the key is stored per order, but the upsert's DO UPDATE writes the freshly drawn UUID over the stored one and returns it, so the checkout restarted after a crash gets a new key and charges again.
import type { CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS charge_keys (order_id integer PRIMARY KEY, key text NOT NULL)');
  const stored = await env.db.query<{ key: string }>(
    `INSERT INTO charge_keys (order_id, key) VALUES ($1, $2)
     ON CONFLICT (order_id) DO UPDATE SET key = EXCLUDED.key RETURNING key`,
    [order.id, env.random.uuid()],
  );
  const key = stored.rows[0].key;
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
