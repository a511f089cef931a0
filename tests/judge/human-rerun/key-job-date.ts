// expect: wrong
// kind: wrong-key
// why: the keys carry the date the job runs, so the operator's rerun the next day builds new keys, finds nothing done and bills every order again.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

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
  // The billing run of the day: one per day is what the job is for.
  const runDate = new Date(env.clock.now()).toISOString().slice(0, 10);
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id, runDate });
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      ),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id, runDate });
    await once(env, receiptKey, () => withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })));
  }
}
