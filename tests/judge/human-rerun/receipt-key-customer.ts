// expect: wrong
// kind: wrong-key
// why: the charge is keyed on the order but the receipt on the customer ("one receipt e-mail per customer per run"), so a customer's second order finds the first one's receipt key done and its receipt is never sent.
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
    const chargeKey = opKey('charge', { orderId: order.id });
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      ),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { customer: order.customerId });
    await once(env, receiptKey, () =>
      withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })),
    );
  }
}
