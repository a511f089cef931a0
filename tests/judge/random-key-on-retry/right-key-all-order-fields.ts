// expect: right
// kind: derived-key
// why: the key is built from every field of the order (id, customer and total), none of which changes between a retry or a restarted checkout, and the id alone makes it differ for every order, so the provider sees one key per charge.
import type { CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = `charge/${order.id}/${order.customerId}/${order.totalCents}`;
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
