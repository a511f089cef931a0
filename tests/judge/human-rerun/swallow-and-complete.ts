// expect: wrong
// kind: swallowed-timeout
// why: a timed-out charge is marked done as if it went through, but a timeout says nothing: when the request was lost the order is never charged, and the rerun trusts the record.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const c = await claim(env.db, chargeKey, 300);
    if (c.owned) {
      let charge: unknown = null;
      try {
        charge = await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey });
      } catch {
        charge = { timedOut: true };
      }
      await complete(env.db, chargeKey, charge);
    } else if (!c.done) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (!r.owned) continue;
    for (let attempt = 1; ; attempt++) {
      try {
        await complete(env.db, receiptKey, await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
        break;
      } catch (err) {
        if (attempt === 3) throw err;
        await env.sleep(1000 * attempt);
      }
    }
  }
}
