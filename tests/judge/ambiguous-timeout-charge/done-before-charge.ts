// expect: wrong
// kind: done-before-effect
// why: the charge is recorded done before it is made, so a crash right after the record leaves an order that every later run believes was charged.
import { opKey, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  const first = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING RETURNING op_key`,
    [key],
  );
  if (first.rows.length === 0) {
    const row = await env.db.query<{ result: ChargeResult }>('SELECT result FROM operations WHERE op_key = $1', [key]);
    return row.rows[0].result;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
      await env.db.query('UPDATE operations SET result = $2 WHERE op_key = $1', [key, JSON.stringify(charge)]);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
