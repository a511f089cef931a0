// expect: wrong
// kind: done-late
// why: each order's charge is marked done only after its receipt went out; a crash just before the receipt leaves a charge that went through claimed and not done, and the rerun 26 hours later, when the provider has forgotten the key, charges that order again, where marking it done right after the charge would have stopped the rerun.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function retried<T>(env: Env, call: () => Promise<T>): Promise<T> {
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
    const charge = await claim(env.db, chargeKey, 300);
    if (!charge.owned && !charge.done) continue;
    let charged: unknown = null;
    if (charge.owned) {
      charged = await retried(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      );
    }
    // One write for the order's bookkeeping once the customer has the receipt.
    const receipt = await claim(env.db, receiptKey, 300);
    let sent: unknown = null;
    if (receipt.owned) {
      sent = await retried(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
    }
    if (charge.owned) await complete(env.db, chargeKey, charged);
    if (receipt.owned) await complete(env.db, receiptKey, sent);
  }
}
