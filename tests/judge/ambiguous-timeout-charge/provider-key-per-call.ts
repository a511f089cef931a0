// expect: wrong
// kind: wrong-key
// why: the operations table is keyed on the order, but the provider's key is a UUID drawn once per chargeOrder call (reused by that call's retries, never stored), so when checkout dies after a charge went through and another run takes the claim over within the provider's 24 hours, the takeover sends a new key and the card is charged a second time, where a key derived from the order would have been answered with the original charge.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  // One idempotency key for this attempt to charge, shared by its retries.
  const providerKey = env.random.uuid();
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: providerKey },
      );
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
