// expect: wrong
// kind: wrong-key
// why: the attempt number is part of the key, so every retry after a lost answer is a new charge to the provider.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {

  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: opKey('charge', { orderId: order.id, attempt }) },
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
