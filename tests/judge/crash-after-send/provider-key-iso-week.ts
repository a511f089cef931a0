// expect: wrong
// kind: wrong-key
// why: the provider key adds the ISO week of the attempt (on the database's clock), so a takeover after a crash after the send that falls into the next week (the 23 h redrive across Sunday midnight) is a new key and sends a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  // the provider keeps keys for about a week on our plan; scope them to that
  const { rows } = await env.db.query<{ wk: string }>(`SELECT to_char(now(), 'IYYY-IW') AS wk`);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}:${rows[0].wk}` });
  await complete(env.db, key, sent);
  return 'ack';
}
