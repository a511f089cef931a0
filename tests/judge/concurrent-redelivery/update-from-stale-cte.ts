// expect: wrong
// kind: check-then-act
// why: the row is made to exist expired, then taken with UPDATE … FROM a CTE that selects the stale claim; on PostgreSQL the second of two concurrent UPDATEs waits for the first, re-checks only its own row against the join (the CTE's row keeps the old, expired version from the snapshot), so it updates and returns the row as well and both workers send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  // Find the stale claim and take it in one statement.
  const took = await env.db.query(
    `WITH stale AS (
       SELECT op_key FROM operations
       WHERE op_key = $1 AND state <> 'done' AND lease_until < now()
     )
     UPDATE operations o
        SET state = 'running', lease_until = now() + interval '60 seconds'
       FROM stale
      WHERE o.op_key = stale.op_key
     RETURNING o.op_key`,
    [key],
  );
  if (took.rows.length !== 1) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
