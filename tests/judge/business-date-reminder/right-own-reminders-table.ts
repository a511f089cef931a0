// expect: right
// kind: own-dedupe-table
// why: its own table keyed on (order, business date) is claimed with a lease in one statement and marked sent after the send, with the same pair as the provider's key.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS reminders_sent (
    order_id integer NOT NULL, business_date date NOT NULL, sent boolean NOT NULL DEFAULT false,
    lease_until timestamptz NOT NULL, PRIMARY KEY (order_id, business_date))`);
  const mine = await env.db.query(
    `INSERT INTO reminders_sent (order_id, business_date, lease_until) VALUES ($1, $2::date, now() + interval '60 seconds')
     ON CONFLICT (order_id, business_date) DO UPDATE SET lease_until = now() + interval '60 seconds'
       WHERE NOT reminders_sent.sent AND reminders_sent.lease_until < now()
     RETURNING order_id`,
    [msg.orderId, msg.businessDate],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ sent: boolean }>('SELECT sent FROM reminders_sent WHERE order_id = $1 AND business_date = $2::date', [msg.orderId, msg.businessDate]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await env.db.query('UPDATE reminders_sent SET sent = true WHERE order_id = $1 AND business_date = $2::date', [msg.orderId, msg.businessDate]);
  return 'ack';
}
