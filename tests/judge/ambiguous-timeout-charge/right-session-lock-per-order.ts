// expect: right
// kind: advisory-lock
// why: a session advisory lock per order, on a client of its own and with no transaction open, keeps a second run out while the first charges; under it the done record decides, every retry reuses the order's key, and the charge is recorded before the unlock, so a later run returns it instead of charging again.
import { opKey, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const client = await env.db.connect();
  try {
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
    if (!got.rows[0]?.ok) throw new Error(`order ${order.id} is being charged by someone else`);
    try {
      const before = await client.query<{ result: ChargeResult }>(`SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
      if (before.rows[0]) return before.rows[0].result;
      for (let attempt = 1; ; attempt++) {
        try {
          const charge = await env.payments.charge(
            { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
            { idempotencyKey: key },
          );
          await client.query(
            `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
             ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
            [key, JSON.stringify(charge)],
          );
          return charge;
        } catch (err) {
          if (attempt === 4) throw err;
          await env.sleep(1000 * attempt);
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  } finally {
    client.release();
  }
}
