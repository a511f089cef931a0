// expect: wrong
// kind: swallowed-timeout
// why: a send that times out is taken for sent and the key completed, but a timeout does not say the request reached the provider: when it was lost on the way that day's reminder never goes out, and every redelivery finds the key done.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  let sent: unknown = null;
  try {
    sent = await env.email.send(
      { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
      { idempotencyKey: key },
    );
  } catch {
    // The provider is slow, not down: it sends what it accepted. Better no reminder than two.
    env.log(`reminder send for order ${msg.orderId} timed out; assuming it went out`);
  }
  await complete(env.db, key, sent);
  return 'ack';
}
