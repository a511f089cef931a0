// expect: wrong
// kind: wrong-key
// why: the key is JSON.stringify of an object built in one field order for the first call and in another in the retry path, so the retry after a lost answer sends a different key and the provider charges again.
import type { CheckoutOrder, Env } from 'effectively-once';

const keyOf = (fields: Record<string, unknown>) => `charge:${JSON.stringify(fields)}`;

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const request = { orderId: order.id, amountCents: order.totalCents, customer: order.customerId };
  try {
    return await env.payments.charge(request, { idempotencyKey: keyOf({ orderId: order.id, customer: order.customerId }) });
  } catch {
    for (let attempt = 2; ; attempt++) {
      await env.sleep(1000 * attempt);
      try {
        return await env.payments.charge(request, { idempotencyKey: keyOf({ customer: order.customerId, orderId: order.id }) });
      } catch (err) {
        if (attempt === 4) throw err;
      }
    }
  }
}
