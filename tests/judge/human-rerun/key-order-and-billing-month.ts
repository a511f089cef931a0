// expect: wrong
// kind: wrong-key
// why: the charge and receipt keys name the order and the month the job runs in (the billing period), not the order alone; a rerun that falls in the next month (a job from the 31st rerun on the 1st) finds no done key, and after the provider's 24 h the order is charged and receipted again.
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
  // The nightly job bills a period: an order is charged once per billing month.
  const period = new Date(env.clock.now()).toISOString().slice(0, 7);
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id, period });
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: chargeKey },
        ),
      ),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id, period });
    await once(env, receiptKey, () =>
      withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })),
    );
  }
}
