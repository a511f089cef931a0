// expect: wrong
// kind: lease
// why: a first claim is an INSERT … ON CONFLICT DO NOTHING RETURNING (right), but the takeover is UPDATE … WHERE op_key = (SELECT op_key … WHERE expired), whose scalar subquery runs once on the statement's snapshot; on PostgreSQL two deliveries taking a dead worker's expired claim at the same moment both get the key from the subquery, the second UPDATE waits and then re-checks only op_key = that key on the new version, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const fresh = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  if (fresh.rows.length === 0) {
    // Someone has it: take it over only if their lease ran out.
    const took = await env.db.query(
      `UPDATE operations SET state = 'running', lease_until = now() + interval '60 seconds'
       WHERE op_key = (
         SELECT op_key FROM operations
         WHERE op_key = $1 AND state <> 'done' AND lease_until < now()
       )
       RETURNING op_key`,
      [key],
    );
    if (took.rows.length === 0) {
      const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
      return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
    }
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
