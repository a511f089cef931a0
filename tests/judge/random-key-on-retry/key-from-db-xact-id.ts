// expect: wrong
// kind: wrong-key
// why: the key is stored in the database, but it is derived from txid_current() of the transaction that stores it, and the INSERT … ON CONFLICT DO UPDATE overwrites it on every call, so a rerun of the job after a crash charges under a new key.
import { type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS charge_keys (order_id bigint PRIMARY KEY, idem_key text NOT NULL)`);
  const stored = await env.db.query<{ idem_key: string }>(
    `INSERT INTO charge_keys (order_id, idem_key) VALUES ($1, 'charge-' || $2 || '-' || txid_current()::text)
     ON CONFLICT (order_id) DO UPDATE SET idem_key = EXCLUDED.idem_key
     RETURNING idem_key`,
    [order.id, String(order.id)],
  );
  const key = stored.rows[0].idem_key;
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
