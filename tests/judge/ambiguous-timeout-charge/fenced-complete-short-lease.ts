// expect: wrong
// kind: lease
// why: the claim's lease is 10 s and the completion is fenced on it (UPDATE … WHERE the lease is still live), but the retries after lost answers take longer than 10 s, so the charge's complete silently updates nothing; the order stays running, and the next day's rerun takes it over and charges again after the provider forgot the key.
import { opKey, claim } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 10);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      // Only the holder of a live lease may record the outcome.
      await env.db.query(
        `UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1 AND lease_until > now()`,
        [key, JSON.stringify(charge)],
      );
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
