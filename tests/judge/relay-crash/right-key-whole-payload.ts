// expect: right
// kind: derived-key
// why: the key is the hash of the whole message body, which the relay republishes byte for byte from the same outbox row and which differs for every order, so it names the operation as well as the order id does.
import { sha256Hex, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = sha256Hex(`receipt:${JSON.stringify(msg)}`);
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
