import type { Env } from 'effectively-once';

type ShipEvent = {
  eventId: string; orderId: number; amountCents: number;
  customer: string; customerId: string; invoiceHtml: string;
};

export async function handleShipped(event: ShipEvent, env: Env) {
  await env.lookup.check({
    kind: 'email-deliverability',
    value: event.customer,
  });
  await env.transform.call({ kind: 'html-to-pdf', input: event.invoiceHtml });
  await env.db.query(
    `UPDATE shipments SET status = 'shipped' WHERE order_id = $1`,
    [event.orderId],
  );
  await env.db.query(
    `INSERT INTO customers (id, email, last_order) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE
       SET email = EXCLUDED.email, last_order = EXCLUDED.last_order`,
    [event.customerId, event.customer, event.orderId],
  );
  await env.payments.charge({
    orderId: event.orderId,
    amountCents: event.amountCents,
    customer: event.customerId,
  });
  await env.email.send({
    to: event.customer,
    orderId: event.orderId,
    template: 'shipped',
  });
  await env.db.query(
    `UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`,
  );
  await env.db.query(
    'INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)',
    [event.eventId, event.orderId, 'order shipped'],
  );
}
