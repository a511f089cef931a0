// expect: wrong
// kind: wrong-key
// why: the provider key adds the claim's lease end (read back with RETURNING "to tell attempts apart in the provider's log"); a takeover after a crash between the send and complete writes a new lease end, so its send has a new key and the customer gets a second receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await env.db.query<{ lease_until: string }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING lease_until::text AS lease_until`,
    [key],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}:${mine.rows[0]!.lease_until}` });
  await complete(env.db, key, sent);
  return 'ack';
}
