// expect: right
// kind: stored-key
// why: the provider key is a UUID minted once and stored in the order's operations row before its first use (the first INSERT wins), the row is taken by an UPDATE that checks not done and an expired lease with its RETURNING read, every retry and the rerun send the stored key, and the charge is kept in the row for the next-day rerun.
import { opKey } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

type Row = { providerKey: string; charge?: ChargeResult };

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const op = opKey('charge', { orderId: order.id });
  // The key is decided once, with the work, before anything is sent under it.
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result)
     VALUES ($1, 'running', now() - interval '1 second', jsonb_build_object('providerKey', $2::text))
     ON CONFLICT (op_key) DO NOTHING`,
    [op, env.random.uuid()],
  );
  const took = await env.db.query<{ result: Row }>(
    `UPDATE operations SET lease_until = now() + interval '5 minutes'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now()
     RETURNING result`,
    [op],
  );
  if (took.rows.length === 0) {
    const seen = await env.db.query<{ state: string; result: Row }>('SELECT state, result FROM operations WHERE op_key = $1', [op]);
    const row = seen.rows[0];
    if (row?.state === 'done' && row.result.charge) return row.result.charge;
    throw new Error(`order ${order.id} is being charged by someone else`);
  }
  const providerKey = took.rows[0]!.result.providerKey;
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: providerKey },
      );
      await env.db.query(
        `UPDATE operations SET state = 'done', result = result || jsonb_build_object('charge', $2::jsonb) WHERE op_key = $1`,
        [op, JSON.stringify(charge)],
      );
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
