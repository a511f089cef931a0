// expect: right
// kind: compare-and-set
// why: the key is sha256 of the canonical identity of the operation (receipt e-mail, order id); the claim is one INSERT … ON CONFLICT ON CONSTRAINT operations_pkey DO UPDATE … WHERE (not done, lease run out) RETURNING, a done key is acknowledged and a live one retried later, the e-mail carries the key, and the provider's answer is stored as jsonb on complete.
import { canonical, sha256Hex, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = sha256Hex(canonical({ op: 'receipt-email', orderId: msg.orderId }));
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT ON CONSTRAINT operations_pkey DO UPDATE
       SET state = 'running', lease_until = now() + interval '60 seconds'
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (mine.rows.length === 0) {
    const { rows } = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await env.db.query(
    `UPDATE operations SET state = 'done', result = $2::jsonb WHERE op_key = $1 AND state = 'running'`,
    [key, JSON.stringify({ email: sent, orderId: msg.orderId })],
  );
  return 'ack';
}
