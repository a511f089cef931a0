// expect: wrong
// kind: wrong-key
// why: the key is the order plus the date the database server says it is (timeofday(), so that every retry "agrees on the day"), and a retry after a lost answer that falls past midnight UTC sends a new key: the provider charges the order a second time.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  for (let attempt = 1; ; attempt++) {
    // The database's clock, not this container's: one day for every checkout server.
    const { rows } = await env.db.query<{ day: string }>(`SELECT (timeofday()::timestamptz AT TIME ZONE 'UTC')::date::text AS day`);
    const key = opKey('charge', { orderId: order.id, day: rows[0]!.day });
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
