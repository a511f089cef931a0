// expect: wrong
// kind: result-ignored
// why: a charge the provider answers as a replay is taken for an order an earlier run billed and receipted, so its receipt is skipped; after a lost response the retry is answered as a replay and the order never gets a receipt, and the rerun finds its charge done and sends none either.
import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

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
    if (c.owned) {
      const charge: ChargeResult = await withRetries(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: chargeKey },
        ),
      );
      await complete(env.db, chargeKey, charge);
      // Replayed: the provider had this charge already, so a run before us billed (and receipted) it.
      if (charge.replayed) continue;
    } else if (!c.done) {
      continue;
    }
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (!r.owned) continue;
    const sent = await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
    await complete(env.db, receiptKey, sent);
  }
}
