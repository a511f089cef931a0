// expect: wrong
// kind: wrong-key
// why: the random key is stored with the claim, but a new one is drawn whenever this run owns the claim (a fresh claim, or a takeover after the 60 s lease ran out) and only a run that finds a live claim reuses the stored key: a checkout that dies after the charge went through and is restarted more than a minute later takes the expired claim over, draws a new key and charges the card again (the world restarts it after 5 s, inside the lease).
import { opKey, claim, complete, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const op = opKey('charge', { orderId: order.id });
  const c = await claim(env.db, op, 60);
  let key: string;
  if (c.owned) {
    // Our claim: our key, stored so that a run of this job that finds it held can join in.
    key = env.random.uuid();
    await env.db.query(`UPDATE operations SET result = jsonb_build_object('key', $2::text) WHERE op_key = $1`, [op, key]);
  } else {
    const { rows } = await env.db.query<{ state: string; result: { key?: string } | ChargeResult | null }>(
      'SELECT state, result FROM operations WHERE op_key = $1',
      [op],
    );
    const row = rows[0];
    if (row?.state === 'done') return row.result as ChargeResult;
    const stored = (row?.result as { key?: string } | null)?.key;
    if (!stored) throw new Error(`order ${order.id} is being charged elsewhere`);
    key = stored;            // a previous run of this job left it: continue under its key
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await complete(env.db, op, charge);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
