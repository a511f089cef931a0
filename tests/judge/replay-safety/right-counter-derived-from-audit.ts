// expect: right
// kind: cte
// why: the counter is never incremented: the audit line is appended once per event (one statement whose INSERT into operations ON CONFLICT DO NOTHING gates the audit INSERT), and the counter is then set to the number of distinct events in the audit log, an assignment a replay or a crash-and-rerun repeats harmlessly.
import { opKey, claim, complete } from 'effectively-once';
import type { Env } from 'effectively-once';

type ShipEvent = {
  eventId: string; orderId: number; amountCents: number;
  customer: string; customerId: string; invoiceHtml: string;
};

export async function handleShipped(event: ShipEvent, env: Env) {
  // Safe by nature: a replay costs credits (lookup, transformation)
  // or nothing at all (set a field, upsert by id).
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

  // Needs a key: the provider returns the original charge to a replay within
  // the day, as here. A rerun days later needs the operations table as well
  // (the provider may have forgotten the key; see "Yesterday's job").
  const chargeKey = opKey('charge', { orderId: event.orderId });
  await env.payments.charge(
    {
      orderId: event.orderId,
      amountCents: event.amountCents,
      customer: event.customerId,
    },
    { idempotencyKey: chargeKey },
  );

  // Needs dedupe: claim the e-mail, send it with the same key, mark it done.
  const emailKey = opKey('shipped-email', { orderId: event.orderId });
  const c = await claim(env.db, emailKey, 30);
  if (c.owned) {
    const sent = await env.email.send(
      { to: event.customer, orderId: event.orderId, template: 'shipped' },
      { idempotencyKey: emailKey },
    );
    await complete(env.db, emailKey, sent);
  } else if (!c.done) {
    // Someone else holds the claim and has not finished: fail this
    // attempt, so the event is handled again later.
    throw new Error('the shipped e-mail is being sent elsewhere; retry later');
  }

  // The audit line, once per event: its key and the line in one statement.
  await env.db.query(
    `WITH k AS (
       INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
       ON CONFLICT (op_key) DO NOTHING RETURNING op_key
     )
     INSERT INTO audit_log (event_id, order_id, line) SELECT $2, $3, 'order shipped' FROM k`,
    [opKey('audit-shipped', { eventId: event.eventId }), event.eventId, event.orderId],
  );
  // The counter is derived, not bumped: setting it is idempotent.
  await env.db.query(
    `UPDATE counters SET value = (SELECT count(DISTINCT event_id) FROM audit_log WHERE line = 'order shipped')
     WHERE name = 'orders_shipped'`,
  );
}
