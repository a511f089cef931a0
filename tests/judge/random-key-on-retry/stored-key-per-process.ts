// expect: wrong
// kind: wrong-key
// why: the stored UUID is filed under the checkout process's name rather than the order, so a checkout process that charges a second order sends the first order's key again and the provider refuses it or answers with the first order's charge.
import type { CheckoutOrder, Env } from 'effectively-once';

/** The key of this job's charge: minted once, stored, and found again after a restart. */
async function jobKey(env: Env): Promise<string> {
  const slot = `checkout-key:${env.process}`;
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'running', 'infinity', to_jsonb($2::text))
     ON CONFLICT (op_key) DO NOTHING`,
    [slot, env.random.uuid()],
  );
  const { rows } = await env.db.query<{ result: string }>('SELECT result FROM operations WHERE op_key = $1', [slot]);
  return rows[0]!.result;
}

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = await jobKey(env);
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
