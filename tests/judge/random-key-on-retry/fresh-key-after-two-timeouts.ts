// expect: wrong
// kind: wrong-key
// why: the key is derived from the order, but after two timeouts in a row the code assumes the key is "poisoned" and derives a fresh one with the attempt number: when both answers were lost the provider had already charged, and the third attempt charges the card again.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  for (let attempt = 1; ; attempt++) {
    // Two timeouts under one key: start over with a clean key.
    const key = attempt <= 2 ? opKey('charge', { orderId: order.id }) : opKey('charge', { orderId: order.id, attempt });
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
