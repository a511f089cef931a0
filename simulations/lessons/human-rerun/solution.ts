import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

/** Do `work` once per key; true when it is done (now or before). */
async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 300);
  // Not ours: done before (true), or someone is on it right now (false).
  if (!c.owned) return c.done;
  await complete(env.db, key, await work());
  return true;
}

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
    const chargeKey = opKey('charge', { orderId: order.id });
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge(
          {
            orderId: order.id,
            amountCents: order.totalCents,
            customer: order.customerId,
          },
          { idempotencyKey: chargeKey },
        ),
      ),
    );
    if (!charged) continue;     // no receipt before the charge is done
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, receiptKey, () =>
      withRetries(env, () =>
        env.email.send(
          { to: order.email, orderId: order.id },
          { idempotencyKey: receiptKey },
        ),
      ),
    );
  }
}
