// expect: right
// kind: derived-key
// why: the key is the sha256 of the operation's name and the order id, the same on every attempt and every run, which is all the provider needs.
import { sha256Hex, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = sha256Hex(`charge:order-${order.id}`);
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
