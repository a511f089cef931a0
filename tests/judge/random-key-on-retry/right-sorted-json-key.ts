// expect: right
// kind: derived-key
// why: the key is the JSON of the order's id and customer with its entries sorted by name before stringifying, computed once before the retry loop: the same order gives the same text whatever order its fields were built in, and every retry sends it.
import type { CheckoutOrder, Env } from 'effectively-once';

function stableJson(value: Record<string, string | number>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = `charge:${stableJson({ orderId: order.id, customer: order.customerId })}`;
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
