// expect: wrong
// kind: lease
// why: the claim's lease is 30 hours, meant to outlive the provider's 24-hour memory, so when checkout dies after claiming and before charging, the next-day rerun finds the claim still live and gives up: the order is never charged.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

// Longer than the provider keeps keys: no second charge can start while it may still remember one.
const LEASE_SECONDS = 30 * 3600;

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, LEASE_SECONDS);
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
