// expect: wrong
// kind: swallowed-timeout
// why: after the retries time out it reports a placeholder instead of failing, so checkout records a charge id that does not exist while the card may have been charged.
import { opKey, type ChargeResult, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env): Promise<ChargeResult> {
  const key = opKey('charge', { orderId: order.id });
  try {
    return await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
  } catch {
    return { chargeId: 'pending', amountCents: order.totalCents, replayed: false };
  }
}
