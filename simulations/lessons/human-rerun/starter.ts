import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    await env.payments.charge({
      orderId: order.id,
      amountCents: order.totalCents,
      customer: order.customerId,
    });
    await env.email.send({ to: order.email, orderId: order.id });
  }
}
