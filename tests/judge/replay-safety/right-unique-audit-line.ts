// expect: right
// kind: first-writer-wins
// why: a unique index on audit_log(event_id) makes the audit line itself the event's record: inside one transaction the line is inserted with ON CONFLICT DO NOTHING and the counter bumped only when it was, so a replay finds the line and counts nothing, and a crash before COMMIT leaves neither.
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
  await env.db.query('CREATE UNIQUE INDEX IF NOT EXISTS audit_log_one_line_per_event ON audit_log (event_id)');
  await withTransaction(env.db, async (tx) => {
    const line = await tx.query(
      `INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, 'order shipped') ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [event.eventId, event.orderId],
    );
    if (line.rows.length === 0) return;
    await tx.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
  });
}
