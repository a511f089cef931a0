// expect: right
// kind: compare-and-set
// why: each charge and receipt is claimed by an UPDATE that re-checks state and lease with its row count checked, retried under one key, and completed after the provider answered.
import { opKey, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>) {
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
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done';
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await complete(env.db, key, await work());
      return true;
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
      env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, receiptKey, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
  }
}
