// expect: wrong
// kind: wrong-key
// why: the key holds the time rounded to the nearest minute, which changes at every half minute, so a retry that crosses hh:mm:30 (a checkout at 09:00:25, retried a few seconds later) gets a new key and a second charge.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const minute = Math.round(env.clock.now() / 60_000);       // computed once, before the loop
  const key = opKey('charge', { orderId: order.id, minute });
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
