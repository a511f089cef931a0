// expect: wrong
// kind: result-ignored
// why: the key (order and business date) is right and inserted with ON CONFLICT DO NOTHING, but whether it was inserted is never read, so the 23:59 rerun sends again and only the provider's memory of the key hides it.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
