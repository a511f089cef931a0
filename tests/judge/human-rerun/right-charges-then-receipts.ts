// expect: right
// kind: per-item
// why: the job bills in two passes, first every order's charge and then a receipt for each order whose charge is marked done, each step claimed under a key derived from the order and step, retried with that key and completed right after its answer, so a rerun finds done steps and finishes the rest.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

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

/** Do `work` under `key` unless it is done or someone else holds it. */
async function once(env: Env, key: string, work: () => Promise<unknown>): Promise<void> {
  const c = await claim(env.db, key, 300);
  if (!c.owned) return;
  await complete(env.db, key, await work());
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  // Pass 1: money.
  for (const order of orders) {
    const key = opKey('charge', { orderId: order.id });
    await once(env, key, () =>
      withRetries(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: key },
        ),
      ),
    );
  }
  // Pass 2: receipts, for the charges that are known to have gone through.
  for (const order of orders) {
    const charged = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [opKey('charge', { orderId: order.id })]);
    if (charged.rows[0]?.state !== 'done') continue;
    const key = opKey('receipt-email', { orderId: order.id });
    await once(env, key, () => withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: key })));
  }
}
