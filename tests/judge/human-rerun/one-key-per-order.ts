// expect: wrong
// kind: wrong-key
// why: the charge and the receipt share one key per order, completed after both, so a crash between the charge and the receipt makes the rerun charge the order again after the provider forgot the key.
import { opKey, claim, complete, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const key = opKey('bill-order', { orderId: order.id });
    const c = await claim(env.db, key, 300);
    if (!c.owned) continue;
    for (let attempt = 1; ; attempt++) {
      try {
        await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
        break;
      } catch (err) {
        if (attempt === 3) throw err;
        await env.sleep(1000 * attempt);
      }
    }
    await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: key });
    await complete(env.db, key, { billed: true });
  }
}
