// expect: wrong
// kind: done-late
// why: every charge and receipt is claimed under its own key, but all of them are marked done only once the whole job has finished; a crash anywhere in the job leaves every charge made so far claimed and not done, and the rerun the next day, when the provider has forgotten the keys, charges them all again.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function withRetries<T>(env: Env, call: () => Promise<T>): Promise<T> {
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
  const finished: [string, unknown][] = [];
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const c = await claim(env.db, chargeKey, 300);
    if (c.owned) {
      const charge = await withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      );
      finished.push([chargeKey, charge]);
    } else if (!c.done) {
      continue;
    }
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (r.owned) {
      const sent = await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
      finished.push([receiptKey, sent]);
    }
  }
  for (const [key, result] of finished) await complete(env.db, key, result);
}
