// expect: right
// kind: own-dedupe-table
// why: counter and audit line are written first and the event key last in the same transaction; when the key INSERT … ON CONFLICT DO NOTHING changes no row the whole transaction is rolled back (thrown), so a replay leaves neither a count nor a line, and a crash leaves none of the three.
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
  class AlreadyCounted extends Error {}
  try {
    await withTransaction(env.db, async (tx) => {
      await tx.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
      await tx.query('INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)', [event.eventId, event.orderId, 'order shipped']);
      const first = await tx.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
         ON CONFLICT (op_key) DO NOTHING`,
        [opKey('count-shipped', { eventId: event.eventId })],
      );
      if (first.rowCount !== 1) throw new AlreadyCounted('counted before');   // undo both writes
    });
  } catch (err) {
    if (!(err instanceof AlreadyCounted)) throw err;
  }
}
