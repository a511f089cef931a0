// expect: wrong
// kind: wrong-key
// why: the key carries the settlement date in Tokyo, where the shop's acquirer settles, so a retry after a lost response that falls past midnight in Tokyo (15:00 UTC) sends a new key and the provider charges a second time.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

// The acquirer settles per Tokyo business day, so keys are scoped to it.
const settlementDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Tokyo', year: 'numeric', month: '2-digit', day: '2-digit' });

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  for (let attempt = 1; ; attempt++) {
    const key = opKey('charge', { orderId: order.id, settles: settlementDay.format(new Date(env.clock.now())) });
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
