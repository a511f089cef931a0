// expect: right
// kind: compare-and-set
// why: the claim is lib's single upsert written with ON CONFLICT ON CONSTRAINT operations_pkey, taking over only a not-done row whose lease ran out and returning the row only to its owner, and the send carries the operation's key, so a takeover after a crash after the send gets the first e-mail back.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query(
    `INSERT INTO operations AS o (op_key, state, lease_until)
     VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT ON CONSTRAINT operations_pkey DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE o.state <> 'done' AND o.lease_until < now()
     RETURNING o.op_key`,
    [key],
  );
  if (!rows.length) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
