// expect: right
// kind: compare-and-set
// why: the orders are billed in parallel, but each order's charge and receipt stay in sequence behind their own claims and keys; no two orders share a key, so running them at once changes nothing a rerun can repeat.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>): Promise<boolean> {
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.done;
  await complete(env.db, key, await work());
  return true;
}

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

async function billOne(order: BillingOrder, env: Env) {
  const chargeKey = opKey('charge', { orderId: order.id });
  const charged = await once(env, chargeKey, () =>
    withRetries(env, () =>
      env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
    ),
  );
  if (!charged) return;
  const receiptKey = opKey('receipt-email', { orderId: order.id });
  await once(env, receiptKey, () => withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })));
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  const results = await Promise.allSettled(orders.map((order) => billOne(order, env)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
