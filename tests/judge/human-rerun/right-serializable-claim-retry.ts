// expect: right
// kind: compare-and-set
// why: each step's claim reads its row and inserts or takes it over inside a SERIALIZABLE transaction retried on 40001/23505, so the nightly run and the operator's concurrent run cannot both own a key; the owner charges or sends with the same key and marks it done after, and a key held elsewhere is neither done nor ours.
import { opKey } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function claimStep(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  for (let attempt = 1; ; attempt++) {
    const client = await env.db.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      const { rows } = await client.query<{ state: string; live: boolean }>(
        'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
        [key],
      );
      let verdict: 'mine' | 'done' | 'busy';
      if (rows[0]?.state === 'done') verdict = 'done';
      else if (rows[0]?.live) verdict = 'busy';
      else {
        await client.query(
          `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '300 seconds')
           ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
          [key],
        );
        verdict = 'mine';
      }
      await client.query('COMMIT');
      client.release();
      return verdict;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      const code = (err as { code?: string }).code;
      if ((code === '40001' || code === '23505') && attempt < 5) continue;
      throw err;
    }
  }
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

async function once(env: Env, key: string, work: () => Promise<unknown>): Promise<boolean> {
  const v = await claimStep(env, key);
  if (v !== 'mine') return v === 'done';
  const result = await work();
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(result ?? null)]);
  return true;
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
    await once(env, receiptKey, () =>
      withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })),
    );
  }
}
