// expect: right
// kind: advisory-lock
// why: a short transaction holding pg_advisory_xact_lock on the order reads its own charges table and claims the order only when no charge is recorded and no live claim exists; the charge carries the order's key on every retry and the stored charge answers the next day's rerun.
import { type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = `charge-order-${order.id}`;
  await env.db.query(
    'CREATE TABLE IF NOT EXISTS my_charges (order_id bigint PRIMARY KEY, charge jsonb, claimed_until timestamptz NOT NULL)',
  );
  const client = await env.db.connect();
  let stored: ChargeResult | null = null;
  let mine = false;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    const row = await client.query<{ charge: ChargeResult | null; live: boolean }>(
      'SELECT charge, claimed_until > now() AS live FROM my_charges WHERE order_id = $1',
      [order.id],
    );
    const found = row.rows[0];
    if (found?.charge) stored = found.charge;
    else if (!found || !found.live) {
      await client.query(
        `INSERT INTO my_charges (order_id, claimed_until) VALUES ($1, now() + interval '5 minutes')
         ON CONFLICT (order_id) DO UPDATE SET claimed_until = EXCLUDED.claimed_until`,
        [order.id],
      );
      mine = true;
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  if (stored) return stored;
  if (!mine) throw new Error(`order ${order.id} is being charged by someone else`);
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await env.db.query('UPDATE my_charges SET charge = $2 WHERE order_id = $1', [order.id, JSON.stringify(charge)]);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
