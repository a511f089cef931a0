// expect: wrong
// kind: wrong-key
// why: the charge and the receipt are keyed on the customer, so a customer with two orders in the job is charged and receipted for only the first.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.done;
  for (let attempt = 1; ; attempt++) {
    try {
      await complete(env.db, key, await work());
      return true;
    } catch (err) {
      if (attempt === 3) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { customer: order.customerId });
    const charged = await once(env, chargeKey, () =>
      env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
    );
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { customer: order.customerId });
    await once(env, receiptKey, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
  }
}
