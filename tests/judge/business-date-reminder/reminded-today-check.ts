// expect: wrong
// kind: wrong-key
// why: the claim is keyed on the order and the day it is sent (sent_on = 'today', current_date), not on msg.businessDate: a 23:59 rerun redelivered after midnight is taken for that day's reminder and sends a second one for the 5th, and the 6th's then finds its day taken.
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS reminder_log (
    order_id bigint NOT NULL, sent_on date NOT NULL, sent boolean NOT NULL DEFAULT false, lease_until timestamptz NOT NULL,
    PRIMARY KEY (order_id, sent_on))`);
  // one reminder per order per day
  const mine = await env.db.query(
    `INSERT INTO reminder_log (order_id, sent_on, lease_until) VALUES ($1, current_date, now() + interval '60 seconds')
     ON CONFLICT (order_id, sent_on) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE NOT reminder_log.sent AND reminder_log.lease_until < now()
     RETURNING order_id`,
    [msg.orderId],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ sent: boolean }>(`SELECT sent FROM reminder_log WHERE order_id = $1 AND sent_on = 'today'`, [msg.orderId]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: `reminder:${msg.orderId}:${msg.businessDate}` });
  await env.db.query(`UPDATE reminder_log SET sent = true WHERE order_id = $1 AND sent_on = 'today'`, [msg.orderId]);
  return 'ack';
}
