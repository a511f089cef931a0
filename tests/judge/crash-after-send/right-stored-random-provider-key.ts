// expect: right
// kind: stored-key
// why: the provider key is random but stored in the claim row before its first use (written by the INSERT, never overwritten by a takeover, returned by the claim itself), so a worker that takes the claim over after a crash after the send sends under the key the first send used and the provider replays the first e-mail.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const proposed = env.random.uuid();
  const claimed = await env.db.query<{ result: { providerKey?: string } | null }>(
    `INSERT INTO operations (op_key, state, lease_until, result)
     VALUES ($1, 'running', now() + interval '60 seconds', jsonb_build_object('providerKey', $2::text))
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = now() + interval '60 seconds'
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING result`,
    [key, proposed],
  );
  if (claimed.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  // The key the first attempt stored: the same on every takeover.
  const providerKey = claimed.rows[0].result?.providerKey;
  if (!providerKey) throw new Error(`claim of ${key} holds no provider key`);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: providerKey });
  await complete(env.db, key, sent);
  return 'ack';
}
