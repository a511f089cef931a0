// expect: right
// kind: derived-key
// why: the provider key is the SHA-256 of the canonical e-mail request (recipient, order, template), which names this order's receipt and nothing else, so the takeover after a crash sends the same key and the provider answers with the first e-mail.
import { canonical, opKey, claim, complete, sha256Hex, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const request = { to: msg.customer, orderId: msg.orderId };
  const sendKey = sha256Hex(`email:${canonical({ ...request, template: 'receipt' })}`);
  const sent = await env.email.send(request, { idempotencyKey: sendKey });
  await complete(env.db, key, sent);
  return 'ack';
}
