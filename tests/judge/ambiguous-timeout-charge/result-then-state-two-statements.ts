// expect: wrong
// kind: done-late
// why: the charge is saved in one UPDATE and the row marked done in a second one, so a crash between the two leaves the charge stored but the operation running; the next day's rerun finds the claim expired, takes it over and, the provider having forgotten the key, charges the card again.
import { opKey, claim } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, key, 300);
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
      // Keep the charge first, whatever happens next.
      await env.db.query('UPDATE operations SET result = $2 WHERE op_key = $1', [key, JSON.stringify(charge)]);
      await env.db.query(`UPDATE operations SET state = 'done' WHERE op_key = $1`, [key]);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
