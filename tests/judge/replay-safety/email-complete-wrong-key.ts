// expect: wrong
// kind: wrong-key
// why: the shipped e-mail is claimed under its own key but completed under the charge's, so its claim is never marked done; a replay after the 30 s lease takes the e-mail over and sends it again.
import { opKey, claim, complete, withTransaction } from 'effectively-once';
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
    await complete(env.db, chargeKey, sent);
  } else if (!c.done) {
    // Someone else holds the claim and has not finished: fail this
    // attempt, so the event is handled again later.
    throw new Error('the shipped e-mail is being sent elsewhere; retry later');
  }

  // Needs dedupe: record the event's key and count it in one
  // transaction, or not at all.
  await withTransaction(env.db, async (tx) => {
    const first = await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
       ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
      [opKey('count-shipped', { eventId: event.eventId })],
    );
    if (first.rows.length === 0) return;      // counted and logged already
    await tx.query(
      `UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`,
    );
    await tx.query(
      'INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)',
      [event.eventId, event.orderId, 'order shipped'],
    );
  });
}
