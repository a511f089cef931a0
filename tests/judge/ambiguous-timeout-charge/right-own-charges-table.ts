// expect: right
// kind: own-dedupe-table
// why: its own charges table, one row per order, is claimed with a lease in one statement, holds the charge once made, and answers every later run from it; the provider gets the same key on every retry.
import { opKey, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS order_charges (
    order_id integer PRIMARY KEY, lease_until timestamptz NOT NULL, charge jsonb)`);
  const mine = await env.db.query(
    `INSERT INTO order_charges (order_id, lease_until) VALUES ($1, now() + interval '5 minutes')
     ON CONFLICT (order_id) DO UPDATE SET lease_until = now() + interval '5 minutes'
       WHERE order_charges.charge IS NULL AND order_charges.lease_until < now()
     RETURNING order_id`,
    [order.id],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ charge: ChargeResult | null }>('SELECT charge FROM order_charges WHERE order_id = $1', [order.id]);
    if (row.rows[0]?.charge) return row.rows[0].charge;
    throw new Error(`order ${order.id} is being charged elsewhere`);
  }
  const key = opKey('charge', { orderId: order.id });
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
      await env.db.query('UPDATE order_charges SET charge = $2 WHERE order_id = $1', [order.id, JSON.stringify(charge)]);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
