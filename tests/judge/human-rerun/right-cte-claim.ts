// expect: right
// kind: cte
// why: each charge and receipt is claimed by one data-modifying CTE (insert the key, or take over an expired unfinished claim), retried under one key and completed after the provider answered, so the rerun finds every step done.
import { opKey, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const mine = await env.db.query(
    `WITH fresh AS (
       INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '5 minutes')
       ON CONFLICT (op_key) DO NOTHING
       RETURNING op_key
     ), stale AS (
       UPDATE operations SET lease_until = now() + interval '5 minutes'
       WHERE op_key = $1 AND state = 'running' AND lease_until < now() AND NOT EXISTS (SELECT 1 FROM fresh)
       RETURNING op_key
     )
     SELECT op_key FROM fresh UNION ALL SELECT op_key FROM stale`,
    [key],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done';
  }
  await complete(env.db, key, await work());
  return true;
}

async function withRetries<T>(env: Env, call: () => Promise<T>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt === 3) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      ),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, receiptKey, () => withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })));
  }
}
