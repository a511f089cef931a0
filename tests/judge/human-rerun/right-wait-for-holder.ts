// expect: right
// kind: compare-and-set
// why: each step is claimed with the lib's claim under a key derived from the order, but a step someone else holds is waited for (polled every 2 s) until it is done or its 300 s lease runs out and claim() takes it over, so the receipt only ever follows a charge marked done, every step is completed after the provider answered, and the rerun finds everything done.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

/** Do `work` once per key, waiting out anyone else who holds it. */
async function onceWaiting(env: Env, key: string, work: () => Promise<unknown>): Promise<void> {
  for (;;) {
    const c = await claim(env.db, key, 300);
    if (c.owned) {
      await complete(env.db, key, await work());
      return;
    }
    if (c.done) return;
    await env.sleep(2000);
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

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    await onceWaiting(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      ),
    );
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await onceWaiting(env, receiptKey, () =>
      withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })),
    );
  }
}
