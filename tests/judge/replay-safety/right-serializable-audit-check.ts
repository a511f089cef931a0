// expect: right
// kind: first-writer-wins
// why: the audit line is looked up and, when absent, written with the counter in one SERIALIZABLE transaction retried on 40001, so of two handlings that both find no line PostgreSQL commits one and the other retries and finds it; the charge and the e-mail are keyed and claimed as the solution does.
import { opKey, claim, complete } from 'effectively-once';
import type { Env } from 'effectively-once';

type ShipEvent = {
  eventId: string; orderId: number; amountCents: number;
  customer: string; customerId: string; invoiceHtml: string;
};

/** Count and log the event once: true when this call did it. */
async function countOnce(env: Env, event: ShipEvent): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const client = await env.db.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      try {
        const logged = await client.query('SELECT 1 FROM audit_log WHERE event_id = $1', [event.eventId]);
        const fresh = logged.rows.length === 0;
        if (fresh) {
          await client.query(`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'`);
          await client.query('INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)', [event.eventId, event.orderId, 'order shipped']);
        }
        await client.query('COMMIT');
        return fresh;
      } catch (err) {
        await client.query('ROLLBACK');
        if ((err as { code?: string }).code !== '40001' || attempt === 5) throw err;
      }
    } finally {
      client.release();
    }
  }
}

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
  await countOnce(env, event);
}
