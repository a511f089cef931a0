// expect: right
// kind: own-dedupe-table
// why: the orders are billed at once, each order's charge and receipt in sequence behind a row of its own table keyed by order and step (claimed with a lease, marked done after the provider answered); the provider gets a key derived from the same order and step, so the rerun finds every step done.
import { type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function step(env: Env, orderId: number, name: string, work: () => Promise<unknown>): Promise<boolean> {
  const mine = await env.db.query(
    `INSERT INTO job_steps (order_id, name, lease_until) VALUES ($1, $2, now() + interval '5 minutes')
     ON CONFLICT (order_id, name) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE job_steps.done_at IS NULL AND job_steps.lease_until < now()
     RETURNING order_id`,
    [orderId, name],
  );
  if (mine.rows.length === 0) {
    const seen = await env.db.query<{ done_at: string | null }>('SELECT done_at FROM job_steps WHERE order_id = $1 AND name = $2', [orderId, name]);
    return seen.rows[0]?.done_at != null;
  }
  let tries = 0;
  for (;;) {
    try {
      await work();
      break;
    } catch (err) {
      if (++tries === 3) throw err;
      await env.sleep(1500);
    }
  }
  await env.db.query('UPDATE job_steps SET done_at = now() WHERE order_id = $1 AND name = $2', [orderId, name]);
  return true;
}

async function bill(order: BillingOrder, env: Env) {
  const charged = await step(env, order.id, 'charge', () =>
    env.payments.charge(
      { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
      { idempotencyKey: `order-${order.id}-charge` },
    ),
  );
  if (!charged) return;
  await step(env, order.id, 'receipt', () =>
    env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: `order-${order.id}-receipt` }),
  );
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS job_steps (
    order_id bigint NOT NULL, name text NOT NULL, lease_until timestamptz NOT NULL, done_at timestamptz,
    PRIMARY KEY (order_id, name))`);
  const outcomes = await Promise.allSettled(orders.map((order) => bill(order, env)));
  for (const o of outcomes) if (o.status === 'rejected') throw o.reason;
}
