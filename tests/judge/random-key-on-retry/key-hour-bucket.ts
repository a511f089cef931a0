// expect: wrong
// kind: wrong-key
// why: the key holds the hour of the attempt "so keys expire with the provider's window", so a retry or a restarted job that falls in the next hour (a checkout at 09:59:55) is a new key to the provider and charges the card again.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  for (let attempt = 1; ; attempt++) {
    const hour = Math.floor(env.clock.now() / 3_600_000);
    const key = opKey('charge', { orderId: order.id, hour });
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
