// expect: wrong
// kind: wrong-key
// why: one key for the whole job is marked done only at the end, so a job that died half way is taken over and rerun from the first order, charging again the orders it had done.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  const key = opKey('billing-job', { orders: orders.map((o) => o.id) });
  const c = await claim(env.db, key, 300);
  if (!c.owned) return;
  for (const order of orders) {
    await env.payments.charge(
      { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
      { idempotencyKey: opKey('charge', { orderId: order.id }) },
    );
    await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: opKey('receipt-email', { orderId: order.id }) });
  }
  await complete(env.db, key, { billed: orders.length });
}
