// expect: wrong
// kind: memory-cache
// why: the key is minted once and kept in module memory, which a crash wipes: the restarted checkout mints another and charges again.
import type { CheckoutOrder, Env } from 'effectively-once';

const keys = new Map<number, string>();

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  if (!keys.has(order.id)) keys.set(order.id, env.random.uuid());
  const key = keys.get(order.id)!;
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
