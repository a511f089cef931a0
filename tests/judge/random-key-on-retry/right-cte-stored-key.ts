// expect: right
// kind: stored-key
// why: one statement stores a fresh UUID as the order's charge key or, when the order already has one, returns the stored key (a data-modifying CTE with the existing row as its fallback); every attempt and every rerun of the job charges under the key stored before the first call.
import type { CheckoutOrder, Env } from 'effectively-once';

async function keyFor(order: CheckoutOrder, env: Env): Promise<string> {
  await env.db.query('CREATE TABLE IF NOT EXISTS charge_keys (order_id bigint PRIMARY KEY, idem_key text NOT NULL)');
  const { rows } = await env.db.query<{ idem_key: string }>(
    `WITH put AS (
       INSERT INTO charge_keys (order_id, idem_key) VALUES ($1, $2)
       ON CONFLICT (order_id) DO NOTHING
       RETURNING idem_key
     )
     SELECT idem_key FROM put
     UNION ALL
     SELECT idem_key FROM charge_keys WHERE order_id = $1 AND NOT EXISTS (SELECT 1 FROM put)`,
    [order.id, env.random.uuid()],
  );
  return rows[0]!.idem_key;
}

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = await keyFor(order, env);
  let lastError: unknown;
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt > 0) await env.sleep(1000 * attempt);
    try {
      return await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}
