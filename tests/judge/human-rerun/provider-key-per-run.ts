// expect: wrong
// kind: wrong-key
// why: each charge and receipt is claimed in the table under a key derived from the order, but the provider is given that key prefixed with an id drawn for each run; a run that takes over a claim left by a crash between a charge and its complete, within the provider's 24 hours, charges again where the order's own key would have been answered from the provider's memory.
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
  const run = env.random.uuid();
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const c = await claim(env.db, chargeKey, 300);
    if (!c.owned && !c.done) continue;
    if (c.owned) {
      const charge = await withRetries(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: `${run}:${chargeKey}` },
        ),
      );
      await complete(env.db, chargeKey, charge);
    }
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (!r.owned) continue;
    const sent = await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: `${run}:${receiptKey}` }));
    await complete(env.db, receiptKey, sent);
  }
}
