// expect: wrong
// kind: no-retry
// why: checkout gives up after its second timeout, leaving the key running although the first charge may have gone through; two lost answers in a row (which a few retries get past) leave the order to the next-day rerun, which takes the expired claim over after the provider forgot the key and charges again.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  // One retry is plenty: the provider answers in 300 ms.
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt === 2) throw err;
      await env.sleep(1000);
    }
  }
}
