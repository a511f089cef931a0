// expect: wrong
// kind: done-late
// why: each order's claims, charge, receipt and completes run inside one transaction "so an order is billed all or nothing", but the providers are outside it: a crash after the charge rolls back the charge's done record with everything else, and the operator's rerun 26 hours later, after the provider forgot the key, charges the order again.
import { opKey, claim, complete, withTransaction } from 'effectively-once';
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
    await withTransaction(env.db, async (tx) => {
      const chargeKey = opKey('charge', { orderId: order.id });
      const receiptKey = opKey('receipt-email', { orderId: order.id });
      const c = await claim(tx, chargeKey, 300);
      if (!c.owned && !c.done) return;
      if (c.owned) {
        const charge = await withRetries(env, () =>
          env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
        );
        await complete(tx, chargeKey, charge);
      }
      const r = await claim(tx, receiptKey, 300);
      if (!r.owned) return;
      const sent = await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
      await complete(tx, receiptKey, sent);
    });
  }
}
