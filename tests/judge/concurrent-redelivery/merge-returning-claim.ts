// expect: wrong
// kind: sql-newer-than-15
// why: the claim is one MERGE … RETURNING (insert the key, or take over an expired unfinished claim), which is right on PostgreSQL 17 and later, but PostgreSQL 15 has no RETURNING on MERGE and rejects the statement with a syntax error: no delivery ever claims the receipt or sends it.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const claimed = await env.db.query(
    `MERGE INTO operations AS o
     USING (VALUES ($1::text)) AS s(op_key) ON o.op_key = s.op_key
     WHEN MATCHED AND o.state <> 'done' AND o.lease_until < now() THEN
       UPDATE SET state = 'running', lease_until = now() + interval '60 seconds'
     WHEN NOT MATCHED THEN
       INSERT (op_key, state, lease_until) VALUES (s.op_key, 'running', now() + interval '60 seconds')
     RETURNING o.op_key`,
    [key],
  );
  if (claimed.rows.length === 0) {
    const seen = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return seen.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
