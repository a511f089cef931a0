// expect: right
// kind: own-dedupe-table
// why: its own processed-events table, with the event id as primary key, is written in the same transaction as the counter and the line, so they happen together once.
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
    const sent = await env.email.send(
      { to: event.customer, orderId: event.orderId, template: 'shipped' },
      { idempotencyKey: emailKey },
    );
    await complete(env.db, emailKey, sent);
  } else if (!c.done) {
    throw new Error('the shipped e-mail is being sent elsewhere; retry later');
  }
  await env.db.query('CREATE TABLE IF NOT EXISTS counted_events (event_id text PRIMARY KEY)');
  await withTransaction(env.db, async (tx) => {
    const first = await tx.query(
      'INSERT INTO counted_events (event_id) VALUES ($1) ON CONFLICT (event_id) DO NOTHING RETURNING event_id',
      [event.eventId],
    );
    if (first.rows.length !== 1) return;
    await tx.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
    await tx.query('INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)', [event.eventId, event.orderId, 'order shipped']);
  });
}
