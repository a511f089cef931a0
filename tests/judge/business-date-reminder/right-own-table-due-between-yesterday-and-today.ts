// expect: right
// kind: own-dedupe-table
// why: its own table is keyed on (order, business date) from the message, claimed with a 60 s lease and a takeover of expired unsent rows in one statement; a log query of the rows due yesterday or today (BETWEEN 'yesterday' AND 'today', bare words PostgreSQL types as dates) only feeds the narration and decides nothing.
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS reminder_sends (
    order_id bigint NOT NULL, due_on date NOT NULL, sent boolean NOT NULL DEFAULT false, lease_until timestamptz NOT NULL,
    PRIMARY KEY (order_id, due_on))`);
  const recent = await env.db.query<{ n: string }>(`SELECT count(*) AS n FROM reminder_sends WHERE due_on BETWEEN 'yesterday' AND 'today'`);
  env.log(`${recent.rows[0]?.n} reminders due yesterday or today on record`);
  const mine = await env.db.query(
    `INSERT INTO reminder_sends (order_id, due_on, lease_until) VALUES ($1, $2::date, now() + interval '60 seconds')
     ON CONFLICT (order_id, due_on) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE NOT reminder_sends.sent AND reminder_sends.lease_until < now()
     RETURNING order_id`,
    [msg.orderId, msg.businessDate],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ sent: boolean }>('SELECT sent FROM reminder_sends WHERE order_id = $1 AND due_on = $2::date', [msg.orderId, msg.businessDate]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  const key = `reminder:${msg.orderId}:${msg.businessDate}`;
  await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await env.db.query('UPDATE reminder_sends SET sent = true WHERE order_id = $1 AND due_on = $2::date', [msg.orderId, msg.businessDate]);
  return 'ack';
}
