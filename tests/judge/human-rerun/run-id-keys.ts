// expect: wrong
// kind: wrong-key
// why: the keys include an id drawn for each run of the job, so the operator's rerun is a new run with new keys and bills every order again.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  const runId = env.random.uuid();
  for (const order of orders) {
    const key = opKey('charge', { orderId: order.id, runId });
    const c = await claim(env.db, key, 300);
    if (!c.owned) continue;
    const charge = await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
    await complete(env.db, key, charge);
    await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: key });
  }
}
