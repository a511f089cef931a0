// expect: wrong
// kind: swallowed-timeout
// why: after two timed-out attempts the charge is completed with no result "so it is not retried forever", but a lost request means nothing was charged: the order is recorded done, every later attempt returns the empty record, and the customer is never charged.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await complete(env.db, key, charge);
      return charge;
    } catch {
      await env.sleep(1000 * attempt);
    }
  }
  // Give up for good: a stuck "running" row would block every later attempt.
  await complete(env.db, key, null);
  throw new Error(`order ${order.id}: payment provider unreachable`);
}
