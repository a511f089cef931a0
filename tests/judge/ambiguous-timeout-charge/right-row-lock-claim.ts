// expect: right
// kind: row-lock
// why: the order's row is made once (ON CONFLICT DO NOTHING) and a short transaction locks it FOR UPDATE to decide (charged: return the stored charge; a live claim: someone else is charging; otherwise take it with a 5-minute lease); the charge is made after COMMIT under a key derived from the order, retried with that key, and stored with the row marked done, so the next day's rerun is answered from the table.
import { opKey } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

type Row = { charge: ChargeResult | null; live: boolean };

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS charge_claims (
       order_id integer PRIMARY KEY,
       charge jsonb,
       lease_until timestamptz NOT NULL
     )`,
  );
  await env.db.query(`INSERT INTO charge_claims (order_id, lease_until) VALUES ($1, now() - interval '1 second') ON CONFLICT (order_id) DO NOTHING`, [order.id]);
  const client = await env.db.connect();
  let row: Row;
  try {
    await client.query('BEGIN');
    const r = await client.query<Row>('SELECT charge, lease_until > now() AS live FROM charge_claims WHERE order_id = $1 FOR UPDATE', [order.id]);
    row = r.rows[0]!;
    if (!row.charge && !row.live) {
      await client.query(`UPDATE charge_claims SET lease_until = now() + interval '5 minutes' WHERE order_id = $1`, [order.id]);
    }
    await client.query('COMMIT');
    client.release();
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
  if (row.charge) return row.charge;
  if (row.live) throw new Error(`order ${order.id} is being charged by someone else`);
  const key = opKey('charge', { orderId: order.id });
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await env.db.query('UPDATE charge_claims SET charge = $2 WHERE order_id = $1', [order.id, JSON.stringify(charge)]);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
