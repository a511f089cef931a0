// expect: right
// kind: derived-key
// why: the key names the order and its amount, which never changes for one order, so it is the same on every retry and rerun and differs for every order; the table remembers past the provider's 24 hours.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('checkout-charge', { order: order.id, cents: order.totalCents });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  let attempt = 0;
  while (true) {
    attempt++;
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt >= 4) throw err;
      await env.sleep(2000 * attempt);
    }
  }
}
