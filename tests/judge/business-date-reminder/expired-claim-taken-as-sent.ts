// expect: wrong
// kind: check-then-act
// why: a running claim whose lease ran out is taken to mean "the worker sent it and died before complete", so it is acknowledged; a worker that died between its claim and the send leaves that day's reminder unsent forever.
import { opKey, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  if (claimed.rows.length === 0) {
    const r = await env.db.query<{ state: string; live: boolean }>('SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1', [key]);
    const row = r.rows[0];
    if (row?.state === 'done') return 'ack';
    // A live claim: someone is sending right now. An expired one: they sent and crashed before
    // complete — sending again would remind the customer twice.
    return row?.live ? 'retry-later' : 'ack';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
