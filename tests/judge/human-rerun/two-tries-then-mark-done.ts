// expect: wrong
// kind: swallowed-timeout
// why: after two timed-out charges the job gives up on the order but still marks its charge done (with a null result) "so the rerun does not hammer it", so when the first request never reached the provider the order is never billed, and the receipt goes out for a charge that did not happen.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function tryTwice<T>(env: Env, call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch {
    await env.sleep(1000);
    try {
      return await call();
    } catch {
      return null;
    }
  }
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const c = await claim(env.db, chargeKey, 300);
    if (c.owned) {
      const charge = await tryTwice(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: chargeKey },
        ),
      );
      await complete(env.db, chargeKey, charge);
    } else if (!c.done) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (!r.owned) continue;
    const sent = await tryTwice(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
    if (sent !== null) await complete(env.db, receiptKey, sent);
  }
}
