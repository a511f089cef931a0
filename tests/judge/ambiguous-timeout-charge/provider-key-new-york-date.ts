// expect: wrong
// kind: wrong-key
// why: the operations row is keyed on the order, but the provider's key also carries the New York business date, so a retry after a lost response that falls past midnight in New York (05:00 UTC) is a new request to the provider and the card is charged twice.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

const nyDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' });

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      // the provider dashboard groups keys by our business day
      const providerKey = `${nyDate.format(new Date(env.clock.now()))}:${key}`;
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
