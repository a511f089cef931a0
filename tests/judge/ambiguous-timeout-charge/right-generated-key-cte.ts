// expect: right
// kind: cte
// why: its own table derives the provider key as a STORED generated column from the order id and a CHECK ties 'done' to a stored jsonb charge; one CTE statement claims (insert, or take over an expired unfinished row after 5 minutes) and returns the existing row otherwise, with a defensive re-read when the snapshot hid a concurrent insert; the same key goes to every retry and a done row returns the stored charge.
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

type Row = { mine: boolean; provider_key: string; state: string; charge: ChargeResult | null };

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS checkout_charges (
    order_id     bigint PRIMARY KEY,
    provider_key text GENERATED ALWAYS AS ('checkout-charge-' || order_id::text) STORED,
    state        text NOT NULL DEFAULT 'running',
    lease_until  timestamptz NOT NULL,
    charge       jsonb,
    CHECK ((state = 'done') = (charge IS NOT NULL)))`);
  const claimed = await env.db.query<Row>(
    `WITH ins AS (
       INSERT INTO checkout_charges (order_id, lease_until) VALUES ($1, now() + interval '5 minutes')
       ON CONFLICT (order_id) DO UPDATE SET lease_until = now() + interval '5 minutes'
         WHERE checkout_charges.state = 'running' AND checkout_charges.lease_until < now()
       RETURNING true AS mine, provider_key, state, charge)
     SELECT * FROM ins
     UNION ALL
     SELECT false, provider_key, state, charge FROM checkout_charges
      WHERE order_id = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
    [order.id],
  );
  let row = claimed.rows[0];
  if (!row) {
    // A concurrent first insert committed after this statement's snapshot: read it now.
    const again = await env.db.query<Row>(
      'SELECT false AS mine, provider_key, state, charge FROM checkout_charges WHERE order_id = $1',
      [order.id],
    );
    row = again.rows[0];
  }
  if (!row) throw new Error(`order ${order.id}: claim not visible yet, try again`);
  if (!row.mine) {
    if (row.state === 'done' && row.charge) return row.charge;
    throw new Error(`order ${order.id} is being charged elsewhere`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: row.provider_key },
      );
      await env.db.query(
        `UPDATE checkout_charges SET state = 'done', charge = $2::jsonb WHERE order_id = $1`,
        [order.id, JSON.stringify(charge)],
      );
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
