// expect: right
// kind: derived-key
// why: the key is the order and msg.businessDate, as the solution's; before claiming it checks in SQL that the business date has come ($1::date <= 'today', a bare 'today' that PostgreSQL types as a date from the other side: the session's date at the transaction's start), which every reminder in the run passes, the redelivery after midnight and the next-morning redrive included.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  // a reminder scheduled ahead of its day waits for it
  const due = await env.db.query<{ due: boolean }>(`SELECT $1::date <= 'today' AS due`, [msg.businessDate]);
  if (!due.rows[0]?.due) return 'retry-later';
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
