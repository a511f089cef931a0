// expect: right
// kind: first-writer-wins
// why: its own charges table keeps one row per order; a stored charge is returned as it is, otherwise the charge is made under a key derived from the order (the same on every retry, so the provider answers a concurrent or repeated call within 24 h with the same charge) and stored with INSERT … ON CONFLICT DO NOTHING, after which the stored row is read back and returned, so every caller reports the one charge and the next day's rerun is answered from the table.
import { opKey } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

async function stored(env: Env, orderId: number): Promise<ChargeResult | null> {
  const { rows } = await env.db.query<{ charge: ChargeResult }>('SELECT charge FROM order_charges WHERE order_id = $1', [orderId]);
  return rows[0]?.charge ?? null;
}

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS order_charges (order_id integer PRIMARY KEY, charge jsonb NOT NULL)');
  const before = await stored(env, order.id);
  if (before) return before;
  const key = opKey('charge', { orderId: order.id });
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await env.db.query('INSERT INTO order_charges (order_id, charge) VALUES ($1, $2) ON CONFLICT (order_id) DO NOTHING', [
        order.id,
        JSON.stringify(charge),
      ]);
      return (await stored(env, order.id)) ?? charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
