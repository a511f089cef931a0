// expect: right
// kind: trigger
// why: a unique index on audit_log(event_id) makes the audit line the event's record, and a trigger on audit_log bumps the counter for each line actually inserted, so INSERT … ON CONFLICT DO NOTHING writes the line and the count in one statement, atomically, once per event; the charge and the e-mail are keyed and claimed as in the lesson.
import { opKey, claim, complete } from 'effectively-once';
import type { Env } from 'effectively-once';

type ShipEvent = {
  eventId: string; orderId: number; amountCents: number;
  customer: string; customerId: string; invoiceHtml: string;
};

async function ensureSchema(env: Env) {
  const { rows } = await env.db.query(`SELECT 1 FROM pg_trigger WHERE tgname = 'audit_counts_shipped'`);
  if (rows.length) return;
  await env.db.query('CREATE UNIQUE INDEX IF NOT EXISTS audit_log_one_line_per_event ON audit_log (event_id)');
  await env.db.query(`
    CREATE OR REPLACE FUNCTION count_shipped_line() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.line = 'order shipped' THEN
        UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped';
      END IF;
      RETURN NEW;
    END $$`);
  await env.db.query(`
    CREATE TRIGGER audit_counts_shipped AFTER INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION count_shipped_line()`);
}

export async function handleShipped(event: ShipEvent, env: Env) {
  await ensureSchema(env);
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

  // The line and, through the trigger, the count: one statement, once per event.
  await env.db.query(
    `INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, 'order shipped')
     ON CONFLICT (event_id) DO NOTHING`,
    [event.eventId, event.orderId],
  );
}
