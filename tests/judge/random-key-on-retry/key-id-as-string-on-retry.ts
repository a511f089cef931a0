// expect: wrong
// kind: wrong-key
// why: the retry path rebuilds the key from the order id as a string, and JSON.stringify writes "2077" where the first call wrote 2077, so the retry's key is new and a charge whose answer was lost is made twice.
import type { CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const request = { orderId: order.id, amountCents: order.totalCents, customer: order.customerId };
  let key = JSON.stringify({ op: 'charge', orderId: order.id });
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(request, { idempotencyKey: key });
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
      key = JSON.stringify({ op: 'charge', orderId: String(order.id) });
    }
  }
}
