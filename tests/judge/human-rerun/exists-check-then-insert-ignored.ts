// expect: wrong
// kind: check-then-act
// why: a key is taken as handled whenever its row exists (SELECT 1) and the INSERT's answer is never read, so a row a crashed run left running, or one the other run still holds, counts as done: a crash before the first receipt leaves order 3001 without one, and a receipt can go out before its charge was confirmed.
import { opKey } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function doneOrStart(env: Env, key: string): Promise<boolean> {
  const seen = await env.db.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
  if (seen.rows.length) return true;
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '5 minutes')
     ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  return false;
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
    if (!(await doneOrStart(env, chargeKey))) {
      const charge = await withRetries(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: chargeKey },
        ),
      );
      await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [chargeKey, JSON.stringify(charge)]);
    }
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    if (!(await doneOrStart(env, receiptKey))) {
      const sent = await withRetries(env, () =>
        env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }),
      );
      await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [receiptKey, JSON.stringify(sent)]);
    }
  }
}
