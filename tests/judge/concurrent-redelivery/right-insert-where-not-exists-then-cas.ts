// expect: right
// kind: compare-and-set
// why: the fresh claim is an INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING whose row is read, and a takeover is a single UPDATE … WHERE state <> 'done' AND lease_until < now() whose rowCount is read, so exactly one worker owns the key at a time.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const inserted = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     SELECT $1, 'running', now() + interval '60 seconds'
     WHERE NOT EXISTS (SELECT 1 FROM operations WHERE op_key = $1)
     ON CONFLICT (op_key) DO NOTHING
     RETURNING op_key`,
    [key],
  );
  let owned = inserted.rows.length === 1;
  if (!owned) {
    const taken = await env.db.query(
      `UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state <> 'done' AND lease_until < now()`,
      [key],
    );
    owned = taken.rowCount === 1;
  }
  if (!owned) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
