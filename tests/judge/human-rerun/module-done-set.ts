// expect: wrong
// kind: memory-cache
// why: the orders billed are remembered in a module-level Set, which lives as long as one process: the next day's rerun starts with it empty and charges and mails every order again, after the provider has forgotten the keys.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

const billed = new Set<number>();

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
    if (billed.has(order.id)) continue;
    const chargeKey = opKey('charge', { orderId: order.id });
    await withRetries(env, () =>
      env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
    );
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
    billed.add(order.id);
  }
}
