import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  // Our own record first: it lasts as long as we keep it, not 24 hours.
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    // Charged before: return that charge.
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        {
          orderId: order.id,
          amountCents: order.totalCents,
          customer: order.customerId,
        },
        { idempotencyKey: key },       // the same key on every retry
      );
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      // Out of attempts, not knowing: the operation stays running. A
      // run within the provider's 24 h is safe (same key); after that,
      // only asking the provider (reconciliation) can tell.
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
