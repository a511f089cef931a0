// expect: wrong
// kind: wrong-key
// why: current_date is the day the statement runs, not the day the reminder is for, so a redelivery after midnight is keyed on the next day.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const today = await env.db.query<{ d: string }>(`SELECT to_char(current_date, 'YYYY-MM-DD') AS d`);
  const key = opKey('reminder', { orderId: msg.orderId, date: today.rows[0].d });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
