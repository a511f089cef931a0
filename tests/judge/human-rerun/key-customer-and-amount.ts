// expect: wrong
// kind: wrong-key
// why: charge and receipt keys name the customer and the amount instead of the order, so two orders of one customer at the same price share keys: the second is never charged nor receipted, found "done" under the first order's key.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.done;
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
    const who = { customer: order.customerId, amountCents: order.totalCents };
    const chargeKey = opKey('charge', who);
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: chargeKey },
        ),
      ),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', who);
    await once(env, receiptKey, () =>
      withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })),
    );
  }
}
