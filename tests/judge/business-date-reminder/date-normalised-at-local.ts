// expect: wrong
// kind: sql-newer-than-15
// why: the business date is normalised in SQL with AT LOCAL, which PostgreSQL 17 added: on PostgreSQL 15 the statement is a syntax error, every delivery throws and no reminder is ever sent.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  // Normalise whatever the scheduler sent ('2026-01-05', '2026-01-05T00:00:00Z', …) to a plain date,
  // read in the database's own zone so every worker agrees, whatever its host's TZ says.
  const { rows } = await env.db.query<{ d: string }>(
    `SELECT to_char(((($1::date)::timestamp AT TIME ZONE current_setting('TimeZone')) AT LOCAL)::date, 'YYYY-MM-DD') AS d`,
    [msg.businessDate.slice(0, 10)],
  );
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
