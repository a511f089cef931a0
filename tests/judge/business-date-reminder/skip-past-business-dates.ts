// expect: wrong
// kind: wrong-key
// why: a reminder whose business date is before today's UTC date is acknowledged as stale, so a failed 09:00 reminder that the queue redrives 23 h later, the next morning (seeds 9, 17, …), is dropped and that day never gets its reminder.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  // never remind about a day that is already over
  const { rows } = await env.db.query<{ stale: boolean }>(`SELECT $1::date < (now() AT TIME ZONE 'UTC')::date AS stale`, [msg.businessDate]);
  if (rows[0].stale) return 'ack';
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
