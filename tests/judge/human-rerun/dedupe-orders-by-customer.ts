// expect: wrong
// kind: wrong-key
// why: to make sure nobody is billed twice the job bills each customer once per run and claims "bill this customer" keys; a customer with two orders in the job has her second order never charged and never receipted, and the rerun finds the customer's key done.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

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
  const seen = new Set<string>();
  for (const order of orders) {
    if (seen.has(order.customerId)) continue;   // never bill anyone twice
    seen.add(order.customerId);
    const chargeKey = opKey('charge', { customerId: order.customerId });
    const c = await claim(env.db, chargeKey, 300);
    if (!c.owned) continue;
    const charge = await withRetries(env, () =>
      env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: chargeKey },
      ),
    );
    await complete(env.db, chargeKey, charge);
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (!r.owned) continue;
    const sent = await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
    await complete(env.db, receiptKey, sent);
  }
}
