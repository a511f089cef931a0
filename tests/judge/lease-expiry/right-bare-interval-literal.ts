// expect: right
// kind: cte
// why: interval '60' is sixty seconds in PostgreSQL, and the claim is one INSERT … ON CONFLICT DO UPDATE … WHERE state <> 'done' AND lease_until < now() RETURNING on the database clock, read before sending.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const claimed = await env.db.query<{ op_key: string }>(
    `INSERT INTO operations AS o (op_key, state, lease_until)
     VALUES ($1, 'running', now() + interval '60')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = now() + interval '60'
       WHERE o.state <> 'done' AND o.lease_until < now()
     RETURNING o.op_key`,
    [key],
  );
  if (claimed.rows.length !== 1) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
