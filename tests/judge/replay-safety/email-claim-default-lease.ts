// expect: wrong
// kind: lease
// why: the e-mail's claim keeps lib's default 120 s lease while failed attempts come back every 30 s, so after a run dies holding the claim every retry finds it "running" and fails until its attempts are used up, and the "shipped" e-mail is never sent.
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
  const c = await claim(env.db, emailKey);          // lease: lib's default
  if (c.owned) {
    const sent = await env.email.send(
      { to: event.customer, orderId: event.orderId, template: 'shipped' },
      { idempotencyKey: emailKey },
    );
    await complete(env.db, emailKey, sent);
  } else if (!c.done) {
    throw new Error('the shipped e-mail is being sent elsewhere; retry later');
  }
  await withTransaction(env.db, async (tx) => {
    const first = await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
       ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
      [opKey('count-shipped', { eventId: event.eventId })],
    );
    if (first.rows.length === 0) return;
    await tx.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
    await tx.query('INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)', [event.eventId, event.orderId, 'order shipped']);
  });
}
