// expect: wrong
// kind: lease
// why: the count's key is taken with lib's claim() inside the counting transaction and never completed ("the COMMIT is the completion"), so what records the event is a 'running' row with a lease: once its lease (five minutes here) has run out, a later replay — a redelivery the next hour, a rerun the next day — takes the key over and counts and logs the event again.
import { opKey, claim, complete, withTransaction } from 'effectively-once';
import type { Env } from 'effectively-once';

type ShipEvent = {
  eventId: string; orderId: number; amountCents: number;
  customer: string; customerId: string; invoiceHtml: string;
};

async function safeFour(event: ShipEvent, env: Env) {
  await env.lookup.check({ kind: 'email-deliverability', value: event.customer });
  await env.transform.call({ kind: 'html-to-pdf', input: event.invoiceHtml });
  await env.db.query(`UPDATE shipments SET status = 'shipped' WHERE order_id = $1`, [event.orderId]);
  await env.db.query(
    `INSERT INTO customers (id, email, last_order) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email, last_order = EXCLUDED.last_order`,
    [event.customerId, event.customer, event.orderId],
  );
}

async function shippedEmail(event: ShipEvent, env: Env) {
  const emailKey = opKey('shipped-email', { orderId: event.orderId });
  const c = await claim(env.db, emailKey, 30);
  if (c.owned) {
    const sent = await env.email.send({ to: event.customer, orderId: event.orderId, template: 'shipped' }, { idempotencyKey: emailKey });
    await complete(env.db, emailKey, sent);
  } else if (!c.done) {
    throw new Error('the shipped e-mail is being sent elsewhere; retry later');
  }
}

async function chargeOnce(event: ShipEvent, env: Env) {
  await env.payments.charge(
    { orderId: event.orderId, amountCents: event.amountCents, customer: event.customerId },
    { idempotencyKey: opKey('charge', { orderId: event.orderId }) },
  );
}

export async function handleShipped(event: ShipEvent, env: Env) {
  await safeFour(event, env);
  await chargeOnce(event, env);
  await shippedEmail(event, env);
  await withTransaction(env.db, async (tx) => {
    const c = await claim(tx, opKey('count-shipped', { eventId: event.eventId }), 300);
    if (!c.owned) return; // counted already (or being counted)
    await tx.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
    await tx.query('INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)', [event.eventId, event.orderId, 'order shipped']);
  });
}
