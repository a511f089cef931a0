// expect: wrong
// kind: wrong-key
// why: the key names the customer and the amount, not the order, so two purchases by the same customer for the same price share one key: the second is answered from the first's stored charge (and the provider's replay) and is never charged.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  // What the provider sees: who pays, how much.
  const key = opKey('charge', { customer: order.customerId, amountCents: order.totalCents });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
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
