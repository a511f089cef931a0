// expect: right
// kind: derived-key
// why: the key is a readable string of the operation and the order id, not a hash, but it is the same on every attempt and every run and different for every order, which is all the provider needs.
import type { CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = `checkout-charge-order-${order.id}`;
  let lastError: unknown;
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt > 0) await env.sleep(500 * 2 ** attempt);
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}
