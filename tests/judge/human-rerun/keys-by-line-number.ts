// expect: wrong
// kind: batch-index
// why: each charge and receipt is keyed by its line number in the job ("the rerun gets the same list"), not by the order, so the next night's job, whose first line is another order, finds line 0's charge and receipt done and bills nobody; the keys name a position, which any other list (tomorrow's, a re-sorted one, one with an order added) gives to another order.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 300);
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
  for (const [line, order] of orders.entries()) {
    // The job's lines are its identity: a rerun walks the same list.
    const chargeKey = opKey('billing-job', { line, step: 'charge' });
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: chargeKey }),
      ),
    );
    if (!charged) continue;
    const receiptKey = opKey('billing-job', { line, step: 'receipt' });
    await once(env, receiptKey, () =>
      withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey })),
    );
  }
}
