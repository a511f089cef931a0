// expect: wrong
// kind: wrong-key
// why: the key names the customer and the amount, which is not the operation: the customer's next order is answered with the first order's charge when the amounts match, or refused when they differ.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { customer: order.customerId, amountCents: order.totalCents });
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
