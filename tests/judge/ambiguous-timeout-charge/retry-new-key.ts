// expect: wrong
// kind: wrong-key
// why: each retry after a timeout carries a fresh key, so a lost answer followed by a retry is two charges even though the table stops the rerun.
import { opKey, claim, complete, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error('being charged elsewhere');
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: env.random.uuid() });
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
