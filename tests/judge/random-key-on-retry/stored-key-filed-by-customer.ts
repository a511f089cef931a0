// expect: wrong
// kind: wrong-key
// why: the random key is stored before first use but filed under the customer, so Ada's second order (1043) is charged with order 1042's key and the provider answers it with the first charge (or refuses the key for another amount): 1043 is never charged.
import { type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const slot = `charge-key:${order.customerId}`;
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), to_jsonb($2::text))
     ON CONFLICT (op_key) DO NOTHING`,
    [slot, env.random.uuid()],
  );
  const { rows } = await env.db.query<{ key: string }>(`SELECT result #>> '{}' AS key FROM operations WHERE op_key = $1`, [slot]);
  const key = rows[0].key;
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
