// expect: right
// kind: derived-key
// why: the key is computed by the database from the order id alone (md5 of 'charge:' and the id), the same text on every attempt, every rerun of the job after a crash, and on any server; a different order gets a different key.
import type { CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const { rows } = await env.db.query<{ key: string }>(`SELECT md5('charge:' || $1::text) AS key`, [order.id]);
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
