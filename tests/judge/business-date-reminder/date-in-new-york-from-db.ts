// expect: wrong
// kind: host-clock
// why: the key's date is the database's current date in New York, the date of the attempt and not the business date the reminder is for, so a 23:59 rerun redelivered after midnight sends a second reminder for the 5th under the 6th's key, and the 6th's own reminder then finds its key done.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  // The database's clock, in the business's own time zone: no host clock involved.
  const { rows } = await env.db.query<{ d: string }>(`SELECT (now() AT TIME ZONE 'America/New_York')::date::text AS d`);
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: rows[0].d });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: key },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
