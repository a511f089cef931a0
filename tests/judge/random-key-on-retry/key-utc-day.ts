// expect: wrong
// kind: wrong-key
// why: the key names the UTC day the charge is attempted on as well as the order, so a retry, or a rerun of the job, that falls after midnight is new work to the provider and charges the card again.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  // One charge per order per day: the day keeps yesterday's abandoned checkout from blocking today's.
  const day = new Date(env.clock.now()).toISOString().slice(0, 10);
  const key = opKey('charge', { orderId: order.id, day });
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
