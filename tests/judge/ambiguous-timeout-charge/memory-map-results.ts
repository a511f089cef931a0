// expect: wrong
// kind: memory-cache
// why: the charges are remembered in a Map in the module, which the next day's rerun (another process) does not share, and by then the provider has forgotten the key, so the card is charged again.
import { opKey } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

const charged = new Map<number, ChargeResult>();

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const known = charged.get(order.id);
  if (known) return known;
  const key = opKey('charge', { orderId: order.id });
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
      charged.set(order.id, charge);
      return charge;
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
