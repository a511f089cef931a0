// expect: right
// kind: compare-and-set
// why: each step row is created with ON CONFLICT DO NOTHING and then taken with an UPDATE … WHERE state <> 'done' AND lease_until < now() whose rowCount is read; a receipt is sent only once its charge row says done.
import { opKey } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function take(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  await env.db.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`, [key]);
  const t = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '5 minutes' WHERE op_key = $1 AND state <> 'done' AND lease_until < now()`,
    [key],
  );
  if (t.rowCount === 1) return 'mine';
  const r = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
  return r.rows[0]?.state === 'done' ? 'done' : 'busy';
}

async function finish(env: Env, key: string, result: unknown) {
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(result ?? null)]);
}

async function retried<T>(env: Env, call: () => Promise<T>) {
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
    const c = await take(env, chargeKey);
    if (c === 'busy') continue;
    if (c === 'mine') {
      const charge = await retried(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      );
      await finish(env, chargeKey, charge);
    }
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await take(env, receiptKey);
    if (r !== 'mine') continue;
    const sent = await retried(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
    await finish(env, receiptKey, sent);
  }
}
