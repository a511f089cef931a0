// expect: right
// kind: stored-key
// why: a random provider key is stored in the claim's row when the claim is first made and a takeover keeps it, so every send of the operation carries the same key.
import { type Env, type ReceiptMessage, opKey, complete } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await env.db.query<{ send_key: string }>(
    `INSERT INTO operations (op_key, state, lease_until, result)
       VALUES ($1, 'running', now() + interval '60 seconds', jsonb_build_object('sendKey', $2::text))
     ON CONFLICT (op_key) DO UPDATE SET lease_until = now() + interval '60 seconds'
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING result->>'sendKey' AS send_key`,
    [key, env.random.uuid()],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: mine.rows[0].send_key });
  await complete(env.db, key, sent);
  return 'ack';
}
