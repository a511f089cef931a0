// expect: right
// kind: own-dedupe-table
// why: its own table holds one row per order and step, claimed with a lease in one statement and marked done after the provider answered; retries reuse one key, so the rerun finds every step done.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, orderId: number, step: string, work: () => Promise<unknown>) {
  const mine = await env.db.query(
    `INSERT INTO billing_steps (order_id, step, lease_until) VALUES ($1, $2, now() + interval '5 minutes')
     ON CONFLICT (order_id, step) DO UPDATE SET lease_until = now() + interval '5 minutes'
       WHERE NOT billing_steps.done AND billing_steps.lease_until < now()
     RETURNING order_id`,
    [orderId, step],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ done: boolean }>('SELECT done FROM billing_steps WHERE order_id = $1 AND step = $2', [orderId, step]);
    return row.rows[0]?.done === true;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await work();
      break;
    } catch (err) {
      if (attempt === 3) throw err;
      await env.sleep(1000 * attempt);
    }
  }
  await env.db.query('UPDATE billing_steps SET done = true WHERE order_id = $1 AND step = $2', [orderId, step]);
  return true;
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS billing_steps (
    order_id integer NOT NULL, step text NOT NULL, done boolean NOT NULL DEFAULT false,
    lease_until timestamptz NOT NULL, PRIMARY KEY (order_id, step))`);
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const charged = await once(env, order.id, 'charge', () =>
      env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, order.id, 'receipt', () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
  }
}
