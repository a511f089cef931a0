// expect: wrong
// kind: wrong-key
// why: the orders are billed at once, each step claimed in the table under a key derived from the order, but the provider is given that key prefixed with an id drawn for each run; a takeover of a claim left by a crash between a charge and its complete charges under a key the provider never saw, even within its 24 hours.
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

async function once(env: Env, key: string, work: () => Promise<unknown>): Promise<boolean> {
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.done;
  await complete(env.db, key, await work());
  return true;
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  const run = env.random.uuid();
  const results = await Promise.allSettled(
    orders.map(async (order) => {
      const chargeKey = opKey('charge', { orderId: order.id });
      const charged = await once(env, chargeKey, () =>
        withRetries(env, () =>
          env.payments.charge(
            { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
            { idempotencyKey: `${run}:${chargeKey}` },
          ),
        ),
      );
      if (!charged) return;
      const receiptKey = opKey('receipt-email', { orderId: order.id });
      await once(env, receiptKey, () => withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: `${run}:${receiptKey}` })));
    }),
  );
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}
