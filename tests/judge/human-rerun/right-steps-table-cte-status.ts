// expect: right
// kind: own-dedupe-table
// why: a billing_steps table keyed on (order_id, step) with a CHECK on the step names holds each charge and receipt; one CTE statement claims a step (insert, or take over an expired unfinished one after 10 minutes) and otherwise reports the existing row's state, so a rerun finds done steps done, a step another run holds is skipped (and no receipt precedes its charge), each call retries under a key derived from the order and the step, and the answer is stored as jsonb.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };
type Step = 'charge' | 'receipt';

async function claimStep(env: Env, orderId: number, step: Step): Promise<'mine' | 'done' | 'held'> {
  const { rows } = await env.db.query<{ verdict: string }>(
    `WITH claimed AS (
       INSERT INTO billing_steps (order_id, step, lease_until) VALUES ($1, $2, now() + interval '10 minutes')
       ON CONFLICT (order_id, step) DO UPDATE SET lease_until = EXCLUDED.lease_until
         WHERE billing_steps.result IS NULL AND billing_steps.lease_until < now()
       RETURNING 'mine'::text AS verdict)
     SELECT verdict FROM claimed
     UNION ALL
     SELECT CASE WHEN result IS NOT NULL THEN 'done' ELSE 'held' END FROM billing_steps
      WHERE order_id = $1 AND step = $2 AND NOT EXISTS (SELECT 1 FROM claimed)`,
    [orderId, step],
  );
  return (rows[0]?.verdict as 'mine' | 'done' | 'held' | undefined) ?? 'held';
}

async function withRetries<T>(env: Env, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt === 3) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}

async function once(env: Env, order: BillingOrder, step: Step, work: (key: string) => Promise<unknown>): Promise<boolean> {
  const verdict = await claimStep(env, order.id, step);
  if (verdict !== 'mine') return verdict === 'done';
  const key = opKey(step === 'charge' ? 'charge' : 'receipt-email', { orderId: order.id });
  const result = await withRetries(env, () => work(key));
  await env.db.query('UPDATE billing_steps SET result = $3::jsonb WHERE order_id = $1 AND step = $2', [
    order.id, step, JSON.stringify(result ?? { ok: true }),
  ]);
  return true;
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS billing_steps (
    order_id    bigint NOT NULL,
    step        text NOT NULL CHECK (step IN ('charge', 'receipt')),
    lease_until timestamptz NOT NULL,
    result      jsonb,
    PRIMARY KEY (order_id, step))`);
  for (const order of orders) {
    const charged = await once(env, order, 'charge', (key) =>
      env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key }),
    );
    if (!charged) continue;
    await once(env, order, 'receipt', (key) => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: key }));
  }
}
