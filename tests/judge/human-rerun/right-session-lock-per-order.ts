// expect: right
// kind: advisory-lock
// why: each order is billed under a session advisory lock on one client (unlocked in a finally on the same connection), and under it the done rows are read and each effect is recorded as done right after it succeeds, so a rerun skips what is done and two runs of one order never overlap.
import { opKey, type CheckoutOrder, type DbClient, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

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

const recordDone = (client: DbClient, key: string, result: unknown) =>
  client.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
    [key, JSON.stringify(result)],
  );

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const client = await env.db.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [chargeKey]);
      try {
        const { rows } = await client.query<{ op_key: string }>(
          `SELECT op_key FROM operations WHERE op_key = ANY($1) AND state = 'done'`,
          [[chargeKey, receiptKey]],
        );
        const done = new Set(rows.map((r) => r.op_key));
        if (!done.has(chargeKey)) {
          const charge = await withRetries(env, () =>
            env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
          );
          await recordDone(client, chargeKey, charge);
        }
        if (!done.has(receiptKey)) {
          const sent = await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
          await recordDone(client, receiptKey, sent);
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [chargeKey]);
      }
    } finally {
      client.release();
    }
  }
}
