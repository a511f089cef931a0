// expect: right
// kind: derived-key
// why: the key is computed once per run by the database as sha256 of the canonical identity of the operation (charge, order id), so every attempt, every rerun of the job and every process derives the same key for order 1042 and another one for 1043, whatever the clock or the amount.
import { canonical, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const { rows } = await env.db.query<{ key: string }>(
    `SELECT 'chg_' || encode(sha256(convert_to($1, 'UTF8')), 'hex') AS key`,
    [canonical({ op: 'charge', orderId: order.id })],
  );
  const key = rows[0]!.key;
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
