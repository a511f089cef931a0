// expect: wrong
// kind: lease
// why: a delivery that finds the day's reminder claimed and not done pushes the claim's lease forward before asking to come back later, meaning to keep the sender covered, so a dead worker's claim is renewed by every redelivery and never expires: that day's reminder is never sent.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) {
    if (c.done) return 'ack';
    // Someone is sending it right now: make sure their claim does not run out under them.
    await env.db.query(
      `UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1 AND state = 'running'`,
      [key],
    );
    return 'retry-later';
  }
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: key },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
