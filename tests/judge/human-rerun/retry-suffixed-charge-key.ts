// expect: wrong
// kind: wrong-key
// why: a charge that times out is retried under the key plus the attempt number, a key the provider never saw, so when the first answer was lost (the card was charged) the retry charges the order again.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.done;
  await complete(env.db, key, await work());
  return true;
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const charged = await once(env, chargeKey, async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          // provider rejects a key reused while the first request is "in progress": number the retries
          const k = attempt === 1 ? chargeKey : `${chargeKey}-r${attempt}`;
          return await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: k });
        } catch (err) {
          if (attempt === 3) throw err;
          await env.sleep(1000 * attempt);
        }
      }
    });
    if (!charged) continue;
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, receiptKey, async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey });
        } catch (err) {
          if (attempt === 3) throw err;
          await env.sleep(1000 * attempt);
        }
      }
    });
  }
}
