// expect: wrong
// kind: lease
// why: each claim holds a two-day lease "so nobody double-charges", so when the job dies holding a claim (a crash before a receipt is sent), the operator's rerun 26 hours later finds that claim still live and skips it: the order never gets its receipt.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 2 * 24 * 3600);
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
    const chargeKey = opKey('charge', { orderId: order.id });
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: chargeKey },
        ),
      ),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, receiptKey, () =>
      withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })),
    );
  }
}
