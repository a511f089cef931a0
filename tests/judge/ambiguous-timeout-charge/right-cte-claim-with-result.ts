// expect: right
// kind: cte
// why: one statement inserts the order's key or takes over an expired unfinished claim, and also returns the row as it stood before (state and stored charge), so a done order is answered from the table; the charge is retried under the same key and completed after it answered.
import { complete, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env): Promise<ChargeResult> {
  const key = `charge:order:${order.id}`;
  const { rows } = await env.db.query<{ mine: boolean; state: string | null; result: ChargeResult | null }>(
    `WITH ins AS (
       INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '5 minutes')
       ON CONFLICT (op_key) DO NOTHING RETURNING op_key
     ), took AS (
       UPDATE operations SET lease_until = now() + interval '5 minutes'
       WHERE op_key = $1 AND state <> 'done' AND lease_until < now() AND NOT EXISTS (SELECT 1 FROM ins)
       RETURNING op_key
     )
     SELECT EXISTS (SELECT 1 FROM ins UNION ALL SELECT 1 FROM took) AS mine,
            (SELECT state FROM operations WHERE op_key = $1) AS state,
            (SELECT result FROM operations WHERE op_key = $1) AS result`,
    [key],
  );
  const claim = rows[0]!;
  if (!claim.mine) {
    if (claim.state === 'done') return claim.result as ChargeResult;
    throw new Error(`order ${order.id} is being charged elsewhere`);
  }
  let attempt = 0;
  for (;;) {
    try {
      const charge = await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      if (++attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
