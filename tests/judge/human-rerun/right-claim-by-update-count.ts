// expect: right
// kind: own-dedupe-table
// why: its own billing table gets one row per order and step up front, and each step is taken by an UPDATE that checks not done and an expired claim, its row count read; the same key goes to the provider on every retry and the step is marked done after the answer.
import { type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function take(env: Env, orderId: number, step: string) {
  await env.db.query(
    `INSERT INTO billing_steps (order_id, step, claimed_until) VALUES ($1, $2, '-infinity') ON CONFLICT DO NOTHING`,
    [orderId, step],
  );
  const took = await env.db.query(
    `UPDATE billing_steps SET claimed_until = now() + interval '5 minutes'
     WHERE order_id = $1 AND step = $2 AND done_at IS NULL AND claimed_until < now() RETURNING order_id`,
    [orderId, step],
  );
  if (took.rows.length === 1) return 'mine';
  const row = await env.db.query<{ done: boolean }>('SELECT done_at IS NOT NULL AS done FROM billing_steps WHERE order_id = $1 AND step = $2', [orderId, step]);
  return row.rows[0]?.done ? 'done' : 'busy';
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
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS billing_steps (
       order_id bigint NOT NULL, step text NOT NULL, claimed_until timestamptz NOT NULL, done_at timestamptz,
       PRIMARY KEY (order_id, step))`,
  );
  for (const order of orders) {
    let charge = await take(env, order.id, 'charge');
    if (charge === 'mine') {
      await withRetries(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: `billing/charge/${order.id}` },
        ),
      );
      await env.db.query(`UPDATE billing_steps SET done_at = now() WHERE order_id = $1 AND step = 'charge'`, [order.id]);
      charge = 'done';
    }
    if (charge !== 'done') continue;
    if ((await take(env, order.id, 'receipt')) !== 'mine') continue;
    await withRetries(env, () =>
      env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: `billing/receipt/${order.id}` }),
    );
    await env.db.query(`UPDATE billing_steps SET done_at = now() WHERE order_id = $1 AND step = 'receipt'`, [order.id]);
  }
}
