// expect: wrong
// kind: no-retry
// why: every attempt claims the key again, so the retry after a lost answer finds its own first claim still running and gives up; the operation stays running, not done, and the next day's rerun takes the expired claim over and charges again after the provider has forgotten the key.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  for (let attempt = 1; ; attempt++) {
    const c = await claim(env.db, key, 300);
    if (!c.owned) {
      if (c.done) return c.result as ChargeResult;
      throw new Error(`order ${order.id} is being charged by someone else`);
    }
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
