// expect: wrong
// kind: swallowed-timeout
// why: the charge is claimed, retried under one key and completed as it should be, but a receipt send that times out is logged and its key completed anyway ("a receipt is not worth failing the job"), so when the e-mail request never reached the provider the order is recorded receipted and no rerun ever sends it.
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
    if (!c.owned && !c.done) continue; // someone else is on it
    if (c.owned) {
      const charge = await withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      );
      await complete(env.db, chargeKey, charge);
    }
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (!r.owned) continue;
    let sent: unknown = null;
    try {
      sent = await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey });
    } catch (err) {
      env.log(`receipt for ${order.id} failed, not blocking billing on it:`, String(err));
    }
    await complete(env.db, receiptKey, sent);
  }
}
