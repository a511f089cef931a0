// expect: right
// kind: advisory-lock
// why: each step's claim is decided in a short transaction on its own client that first takes pg_advisory_xact_lock on the step's key, then reads the step's row (done: skip; live claim: someone else is on it; otherwise claim it with a 300 s lease) and commits, so two runs never both own a step; the provider gets the same key on every retry, and the step is marked done after it answered.
import { opKey } from 'effectively-once';
import type { CheckoutOrder, DbClient, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

type Verdict = 'done' | 'held' | 'mine';

async function decide(client: DbClient, key: string): Promise<Verdict> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
  const { rows } = await client.query<{ state: string; live: boolean }>(
    'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
    [key],
  );
  const row = rows[0];
  if (row?.state === 'done') return 'done';
  if (row && row.live) return 'held';
  await client.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '300 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
    [key],
  );
  return 'mine';
}

async function claimStep(env: Env, key: string): Promise<Verdict> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const v = await decide(client, key);
    await client.query('COMMIT');
    client.release();
    return v;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
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

async function markDone(env: Env, key: string, result: unknown) {
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(result ?? null)]);
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const c = await claimStep(env, chargeKey);
    if (c === 'held') continue; // neither done nor ours: no receipt yet
    if (c === 'mine') {
      const charge = await withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      );
      await markDone(env, chargeKey, charge);
    }
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    if ((await claimStep(env, receiptKey)) !== 'mine') continue;
    const sent = await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
    await markDone(env, receiptKey, sent);
  }
}
