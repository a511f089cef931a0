// expect: wrong
// kind: done-late
// why: a charge the provider answers as replayed is taken for one an earlier attempt already recorded, so complete is skipped; after a lost response the retry's replay leaves the key running, and the next-day rerun, after the provider forgot the key, takes it over and charges the order again.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
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
      // A replay means the attempt that made this charge got through and recorded it already.
      if (!charge.replayed) await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
