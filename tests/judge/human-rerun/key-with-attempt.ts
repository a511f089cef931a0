// expect: wrong
// kind: wrong-key
// why: the provider's key carries the attempt number, so a retry after a lost answer is new work to the provider and charges the card a second time, though the table is keyed right.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.done;
  await complete(env.db, key, await work());
  return true;
}

async function withRetries<T>(env: Env, call: (attempt: number) => Promise<T>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
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
      withRetries(env, (attempt) =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: `${chargeKey}-${attempt}` },
        ),
      ),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, receiptKey, () => withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })));
  }
}
