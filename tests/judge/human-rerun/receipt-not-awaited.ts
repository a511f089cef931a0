// expect: wrong
// kind: done-before-effect
// why: the receipt is sent in the background and its key completed without waiting for the answer, so a receipt whose request is lost (or a job that dies just after the complete) is recorded as sent and never goes out, and the rerun trusts the record.
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
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const c = await claim(env.db, chargeKey, 300);
    if (!c.owned && !c.done) continue;
    if (c.owned) {
      const charge = await withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      );
      await complete(env.db, chargeKey, charge);
    }
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (!r.owned) continue;
    // Don't hold the billing loop up on the mail server.
    env.email
      .send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })
      .catch((err) => env.log(`receipt ${order.id} failed:`, String(err)));
    await complete(env.db, receiptKey, { queued: true });
  }
}
