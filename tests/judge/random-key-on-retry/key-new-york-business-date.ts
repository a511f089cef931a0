// expect: wrong
// kind: wrong-key
// why: the key carries the shop's business date in New York, so a retry or job rerun that falls after midnight there (05:00 UTC) sends a new key and the provider charges the card a second time.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

const businessDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' });

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  for (let attempt = 1; ; attempt++) {
    // finance reconciles per business day (New York), so the key names the day too
    const key = opKey('charge', { orderId: order.id, businessDay: businessDay.format(new Date(env.clock.now())) });
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
