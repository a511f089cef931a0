// expect: wrong
// kind: no-retry
// why: orders.forEach(async …) starts every order's work and returns at once, so the job reports success before any charge is made and nothing awaits, retries or reports a failed order.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  orders.forEach(async (order) => {
    const chargeKey = opKey('charge', { orderId: order.id });
    const c = await claim(env.db, chargeKey, 300);
    if (!c.owned) return;
    const charge = await env.payments.charge(
      { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
      { idempotencyKey: chargeKey },
    );
    await complete(env.db, chargeKey, charge);
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (!r.owned) return;
    await complete(env.db, receiptKey, await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
  });
}
