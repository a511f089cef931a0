// expect: wrong
// kind: no-claim
// why: derived keys go to the providers but nothing is recorded, and the operator's rerun comes 26 hours later, after the providers forgot the keys: everything is charged and sent again.
import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    await env.payments.charge(
      { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
      { idempotencyKey: opKey('charge', { orderId: order.id }) },
    );
    await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: opKey('receipt-email', { orderId: order.id }) });
  }
}
