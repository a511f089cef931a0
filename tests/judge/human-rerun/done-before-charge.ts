// expect: wrong
// kind: done-before-effect
// why: each order is marked billed before it is charged, so a crash in between leaves an order the rerun skips and nobody ever charges.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const key = opKey('charge', { orderId: order.id });
    const c = await claim(env.db, key, 300);
    if (!c.owned) continue;
    await complete(env.db, key, { billing: true });
    await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
    await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: opKey('receipt-email', { orderId: order.id }) });
  }
}
