// expect: wrong
// kind: wrong-key
// why: a random provider key is drawn for the send and written to the claim's row only after the provider answered, so a worker dying between the send and that write leaves no key behind and the takeover draws a new one: the provider sends a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sendKey = env.random.uuid();
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: sendKey });
  await env.db.query(`UPDATE operations SET result = $2 WHERE op_key = $1`, [key, JSON.stringify({ sendKey })]);
  await complete(env.db, key, sent);
  return 'ack';
}
