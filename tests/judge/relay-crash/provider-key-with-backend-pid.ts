// expect: wrong
// kind: wrong-key
// why: the e-mail's idempotency key carries the claim's database session (pg_backend_pid(), returned by the claim "for tracing"); a worker that dies between the send and complete comes back on a new connection with a new backend pid, so the takeover after the lease sends under a new key and the customer gets a second receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query<{ pid: number }>(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = now() + interval '60 seconds'
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING pg_backend_pid() AS pid`,
    [key],
  );
  if (!rows.length) {
    const st = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return st.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}@${rows[0].pid}` });
  await complete(env.db, key, sent);
  return 'ack';
}
