// expect: wrong
// kind: done-late
// why: the handler marks the key done with INSERT … ON CONFLICT DO NOTHING, which does nothing because its own claim row already exists, so the key stays running and the relay's republish, once the 60 s lease is over, takes it over and asks the provider again (only its key stops a second receipt: own-record).
import { opKey, claim, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  // idempotent "mark done": safe to run twice
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO NOTHING`,
    [key, JSON.stringify(sent)],
  );
  return 'ack';
}
