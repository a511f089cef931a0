// expect: wrong
// kind: check-then-act
// why: the audit line is its own guard through INSERT … SELECT … WHERE NOT EXISTS, but audit_log has no unique key: under READ COMMITTED two handlings of the event at once both find no line, both insert one and both bump the counter.
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
  // The audit line is the record of the event: write it only if it is not there, and count with it.
  await withTransaction(env.db, async (tx) => {
    const logged = await tx.query(
      `INSERT INTO audit_log (event_id, order_id, line)
       SELECT $1::text, $2::integer, $3::text
       WHERE NOT EXISTS (SELECT 1 FROM audit_log WHERE event_id = $1::text)
       RETURNING event_id`,
      [event.eventId, event.orderId, 'order shipped'],
    );
    if (logged.rows.length === 0) return;
    await tx.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
  });
}
