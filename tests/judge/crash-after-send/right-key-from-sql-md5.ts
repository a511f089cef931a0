// expect: right
// kind: derived-key
// why: the provider key is md5 of the order id computed by the database, a pure function of the operation, so every attempt and every takeover sends the same key.
import { claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const k = await env.db.query<{ k: string }>(`SELECT md5('receipt-email:' || $1::text) AS k`, [msg.orderId]);
  const key = k.rows[0].k;
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
