// expect: right
// kind: derived-key
// why: the key is a SHA-256 of the order id laid out as a version-5-style UUID (for a provider that wants UUIDs): computed from the order alone, it is the same on every attempt and every run of the job, and differs between orders.
import { sha256Hex, type CheckoutOrder, type Env } from 'effectively-once';

/** A UUID-shaped name for `name`: the same text always gives the same UUID. */
function uuidFor(name: string): string {
  const h = sha256Hex(name);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = uuidFor(`checkout/charge/order/${order.id}`);
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
