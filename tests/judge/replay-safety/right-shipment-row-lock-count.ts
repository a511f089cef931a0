// expect: right
// kind: row-lock
// why: the count runs in one transaction that first locks the order's shipments row FOR UPDATE (every handling of the event takes that lock first), then looks for the event's audit line and only when there is none bumps the counter and appends the line, so the check and both writes commit together once, and a second handling waits for the first and then sees its line; the charge and the e-mail are keyed and claimed as in the lesson.
import { opKey, claim, complete, withTransaction } from 'effectively-once';
import type { Env } from 'effectively-once';

type ShipEvent = {
  eventId: string; orderId: number; amountCents: number;
  customer: string; customerId: string; invoiceHtml: string;
};

export async function handleShipped(event: ShipEvent, env: Env) {
  await env.lookup.check({ kind: 'email-deliverability', value: event.customer });
  await env.transform.call({ kind: 'html-to-pdf', input: event.invoiceHtml });
  await env.db.query(`UPDATE shipments SET status = 'shipped' WHERE order_id = $1`, [event.orderId]);
  await env.db.query(
    `INSERT INTO customers (id, email, last_order) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email, last_order = EXCLUDED.last_order`,
    [event.customerId, event.customer, event.orderId],
  );

  const chargeKey = opKey('charge', { orderId: event.orderId });
  await env.payments.charge(
    { orderId: event.orderId, amountCents: event.amountCents, customer: event.customerId },
    { idempotencyKey: chargeKey },
  );

  const emailKey = opKey('shipped-email', { orderId: event.orderId });
  const c = await claim(env.db, emailKey, 30);
  if (c.owned) {
    const sent = await env.email.send({ to: event.customer, orderId: event.orderId, template: 'shipped' }, { idempotencyKey: emailKey });
    await complete(env.db, emailKey, sent);
  } else if (!c.done) {
    throw new Error('the shipped e-mail is being sent elsewhere; retry later');
  }

  await withTransaction(env.db, async (tx) => {
    await tx.query('SELECT 1 FROM shipments WHERE order_id = $1 FOR UPDATE', [event.orderId]);
    const seen = await tx.query('SELECT 1 FROM audit_log WHERE event_id = $1', [event.eventId]);
    if (seen.rows.length > 0) return;
    await tx.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
    await tx.query('INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)', [event.eventId, event.orderId, 'order shipped']);
  });
}
