// expect: wrong
// kind: done-before-effect
// why: the charge and the receipt of each order run side by side in Promise.all, each behind its own claim, so a receipt goes out for a charge that is still in flight or fails, and a charge that is running elsewhere does not hold its receipt back.
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
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await Promise.all([
      once(env, chargeKey, () =>
        withRetries(env, () =>
          env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
        ),
      ),
      once(env, receiptKey, () =>
        withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })),
      ),
    ]);
  }
}
