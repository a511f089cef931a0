// expect: wrong
// kind: lease
// why: the stored-result path is right, but the running claim is released (deleted) when the retries give up, so a later run claims afresh and, after the provider forgot the key, charges again although an earlier attempt may have gone through.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    if (c.done) return c.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged elsewhere`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt === 2) {
        // Give the claim back so the job queue (or tomorrow's rerun) can try again cleanly.
        await env.db.query(`DELETE FROM operations WHERE op_key = $1 AND state = 'running'`, [key]);
        throw err;
      }
      await env.sleep(1000 * attempt);
    }
  }
}
