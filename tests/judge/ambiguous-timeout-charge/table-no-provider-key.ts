// expect: wrong
// kind: no-key
// why: the table stops the rerun, but the retries after a lost answer carry no key, so the provider charges the card once per retry.
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
      const charge = await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId });
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
