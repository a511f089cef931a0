// expect: right
// kind: compare-and-set
// why: the claim is an UPDATE that re-checks state and lease with its row count checked, the charge carries the operation's key, and the stored result answers the rerun after the provider forgot the key.
import { opKey, complete, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const took = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '5 minutes'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now() RETURNING op_key`,
    [key],
  );
  if (took.rows.length !== 1) {
    const row = await env.db.query<{ state: string; result: ChargeResult }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    if (row.rows[0]?.state === 'done') return row.rows[0].result;
    throw new Error(`order ${order.id} is being charged elsewhere`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
