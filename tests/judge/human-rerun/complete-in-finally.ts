// expect: wrong
// kind: done-before-effect
// why: each step is completed in finally, so a charge whose request was lost is marked done anyway and the operator's rerun skips an order that was never charged.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.done;
  let result: unknown = null;
  try {
    result = await work();
  } finally {
    // Never leave a key stuck in 'running'.
    await complete(env.db, key, result);
  }
  return true;
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const charged = await once(env, chargeKey, () =>
      env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
    ).catch(() => false);
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, receiptKey, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })).catch(() => false);
  }
}
