// expect: wrong
// kind: result-ignored
// why: a rerun that finds the order charged returns undefined instead of the stored charge, so the next day's rerun tells checkout nothing was charged although the card was.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return undefined;
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
