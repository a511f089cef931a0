// expect: wrong
// kind: no-claim
// why: the provider forgets keys after 24 hours, so the next day's rerun under the same key is a new charge; only a record of our own remembers longer.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
