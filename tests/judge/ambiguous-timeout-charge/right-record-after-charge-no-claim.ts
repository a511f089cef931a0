// expect: right
// kind: own-dedupe-table
// why: a charge already recorded in our own table is returned without calling the provider; otherwise the charge is retried under the order's key (the provider dedupes within its day) and recorded first-writer-wins, so only the brief's acknowledged crash-before-record gap remains.
import { opKey } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  await env.db.query(`CREATE TABLE IF NOT EXISTS order_charges (order_id bigint PRIMARY KEY, charge jsonb NOT NULL)`);
  const known = await env.db.query<{ charge: ChargeResult }>('SELECT charge FROM order_charges WHERE order_id = $1', [order.id]);
  if (known.rows.length) return known.rows[0].charge;
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      const stored = await env.db.query<{ charge: ChargeResult }>(
        `INSERT INTO order_charges (order_id, charge) VALUES ($1, $2)
         ON CONFLICT (order_id) DO UPDATE SET charge = order_charges.charge
         RETURNING charge`,
        [order.id, JSON.stringify(charge)],
      );
      return stored.rows[0].charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
