// expect: wrong
// kind: wrong-key
// why: the business date is normalised with the host's toLocaleDateString(), whose text depends on the worker machine's zone and locale ('1/5/2026' in en-US/UTC, '1/4/2026' in New York, '5.1.2026' in de-DE), so two workers in different regions give the same day's reminder different keys and both send it.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  // accept '2026-01-05', '2026-01-05T00:00:00Z', … and key on the day
  const day = new Date(msg.businessDate).toLocaleDateString();
  const key = opKey('reminder', { orderId: msg.orderId, day });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
