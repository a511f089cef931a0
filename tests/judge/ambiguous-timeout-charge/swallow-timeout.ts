// expect: wrong
// kind: swallowed-timeout
// why: a timeout is stored as "no charge" and returned, so checkout reports nothing charged while the provider holds the charge, and the rerun repeats that answer.
import { opKey, claim, complete, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.result as ChargeResult | null;
  let charge: ChargeResult | null = null;
  try {
    charge = await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
  } catch {
    env.log('charge timed out; treating it as not charged');
  }
  await complete(env.db, key, charge);
  return charge;
}
