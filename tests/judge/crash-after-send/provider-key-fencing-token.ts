// expect: wrong
// kind: wrong-key
// why: each claim draws a fencing token and stores it in the row, and the token is sent as the provider's key; a takeover after a crash draws a new token, so the provider sees a new key and sends a second receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const token = env.random.uuid();
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'running', now() + interval '60 seconds', $2)
     ON CONFLICT (op_key) DO UPDATE SET lease_until = now() + interval '60 seconds', result = $2
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING op_key`,
    [key, JSON.stringify({ token })],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: token });
  await complete(env.db, key, sent);
  return 'ack';
}
