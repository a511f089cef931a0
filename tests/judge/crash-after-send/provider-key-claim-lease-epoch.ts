// expect: wrong
// kind: wrong-key
// why: the provider key is the key plus the lease_until the claim wrote, which a takeover after a crash rewrites, so the second worker sends under a new key and the customer gets two receipts.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const claimed = await env.db.query<{ lease: string }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = now() + interval '60 seconds'
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING extract(epoch from lease_until)::bigint::text AS lease`,
    [key],
  );
  if (claimed.rows.length === 0) {
    const r = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return r.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  // One provider key per claim: the provider dedupes retries of this claim.
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}.${claimed.rows[0].lease}` });
  await complete(env.db, key, sent);
  return 'ack';
}
