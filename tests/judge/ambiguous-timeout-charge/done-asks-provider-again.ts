// expect: wrong
// kind: no-claim
// why: a call that finds the charge done asks the provider again under the same key to get a fresh charge object instead of returning the stored one, and the next day's rerun comes after the provider forgot the key (24 h), so it charges order 2077 a second time.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

async function chargeWithRetries(order: CheckoutOrder, env: Env, key: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    // done before: the same key makes the provider hand back the original charge, fresher than our copy
    if (c.done) return chargeWithRetries(order, env, key);
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  const charge = await chargeWithRetries(order, env, key);
  await complete(env.db, key, charge);
  return charge;
}
