// expect: wrong
// kind: done-before-effect
// why: each attempt completes the key in finally, so a timed-out attempt stores "no charge" as done: the later attempts and the next day's rerun return nothing although the card may have been charged.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  let charge: ChargeResult | null = null;
  try {
    charge = await env.payments.charge(
      { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
      { idempotencyKey: key },
    );
    return charge;
  } finally {
    // Never leave the operation stuck in 'running'.
    await complete(env.db, key, charge);
  }
}
