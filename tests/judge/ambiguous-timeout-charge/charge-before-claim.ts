// expect: wrong
// kind: check-then-act
// why: it charges under the right key first and only then claims and records the charge, so the next day's rerun charges before it looks at the table, and by then the provider has forgotten the key: a second charge.
import { opKey, claim, complete, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  let charge: ChargeResult | undefined;
  for (let attempt = 1; charge === undefined; attempt++) {
    try {
      charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.done ? (c.result as ChargeResult) : charge;
  await complete(env.db, key, charge);
  return charge;
}
