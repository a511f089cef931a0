// expect: wrong
// kind: check-then-act
// why: INSERT … ON CONFLICT DO UPDATE … RETURNING returns the row on every call, done or not, so the next day's rerun reads it as "I own it" and charges again after the provider has forgotten the key.
import { opKey, complete, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '300 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = now() + interval '300 seconds'
     RETURNING op_key`,
    [key],
  );
  if (claimed.rows.length === 0) throw new Error(`order ${order.id} is being charged elsewhere`);
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
