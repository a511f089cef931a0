// expect: wrong
// kind: result-ignored
// why: a charge key the rerun finds done is read as "not charged by me, skip this order", so an order charged by the first run that died before its receipt is skipped by every rerun and its receipt never goes out.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

/** Do `work` once per key; true when this run did it. */
async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 300);
  if (!c.owned) return false;
  await complete(env.db, key, await work());
  return true;
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
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      ),
    );
    if (!charged) continue; // someone else's charge: their receipt too
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, receiptKey, () =>
      withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })),
    );
  }
}
