// expect: wrong
// kind: done-late
// why: receipts go only to orders this run charged itself, so when the nightly run dies after a charge is completed and before its receipt, the rerun finds the charge done, skips the order, and that customer never gets a receipt.
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
  const chargedNow: BillingOrder[] = [];
  for (const order of orders) {
    const key = opKey('charge', { orderId: order.id });
    const c = await claim(env.db, key, 300);
    if (!c.owned) continue; // done before, or someone else is on it
    const charge = await withRetries(env, () =>
      env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key }),
    );
    await complete(env.db, key, charge);
    chargedNow.push(order);
  }
  // Receipts for what this run charged.
  for (const order of chargedNow) {
    const key = opKey('receipt-email', { orderId: order.id });
    const c = await claim(env.db, key, 300);
    if (!c.owned) continue;
    const sent = await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: key }));
    await complete(env.db, key, sent);
  }
}
