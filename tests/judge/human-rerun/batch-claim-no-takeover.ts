// expect: wrong
// kind: lease
// why: the job claims every order's charge in one INSERT … ON CONFLICT DO NOTHING, which never takes over a claim whose lease ran out, so when the nightly job dies after claiming, the operator's rerun finds those charges claimed and not done and skips them: the orders are never billed.
import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

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
  const chargeKeys = orders.map((o) => opKey('charge', { orderId: o.id }));
  // One round trip claims the whole job.
  const claimed = await env.db.query<{ op_key: string }>(
    `INSERT INTO operations (op_key, state, lease_until)
     SELECT k, 'running', now() + interval '5 minutes' FROM unnest($1::text[]) AS k
     ON CONFLICT (op_key) DO NOTHING
     RETURNING op_key`,
    [chargeKeys],
  );
  const mine = new Set(claimed.rows.map((r) => r.op_key));
  for (const [i, order] of orders.entries()) {
    const chargeKey = chargeKeys[i]!;
    if (mine.has(chargeKey)) {
      const charge = await withRetries(env, () =>
        env.payments.charge(
          { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
          { idempotencyKey: chargeKey },
        ),
      );
      await complete(env.db, chargeKey, charge);
    } else {
      const seen = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [chargeKey]);
      if (seen.rows[0]?.state !== 'done') continue;   // another run is on it
    }
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    const r = await claim(env.db, receiptKey, 300);
    if (!r.owned) continue;
    const sent = await withRetries(env, () => env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: receiptKey }));
    await complete(env.db, receiptKey, sent);
  }
}
