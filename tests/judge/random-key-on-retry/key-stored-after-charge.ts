// expect: wrong
// kind: wrong-key
// why: the random key is stored only after the charge answered, so a crash between the charge and the INSERT leaves nothing stored and the restarted checkout charges under a new key.
import { type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const found = await env.db.query<{ key: string }>(`SELECT result->>'key' AS key FROM operations WHERE op_key = $1`, [`charge-${order.id}`]);
  const key = found.rows[0]?.key ?? env.random.uuid();
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      await env.db.query(
        `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), jsonb_build_object('key', $2::text))
         ON CONFLICT (op_key) DO NOTHING`,
        [`charge-${order.id}`, key],
      );
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
