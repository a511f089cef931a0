import type { CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: env.random.uuid() },       // minted on every attempt
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);               // back off, then retry
    }
  }
}
