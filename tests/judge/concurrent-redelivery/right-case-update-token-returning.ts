// expect: right
// kind: compare-and-set
// why: after a read-only fast-path check, every delivery runs the same single UPDATE whose CASE stamps a fresh token only when the row is free (not done, lease expired), and RETURNING says whether the stamped token is this statement's; on PostgreSQL the second UPDATE waits for the first's row lock and recomputes the CASE on the row the first committed, so it keeps the first token, gets mine = false and steps aside.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // Fast path in a read-only transaction: a finished receipt needs nothing more.
  const seen = await withTransaction(env.db, async (tx) => {
    await tx.query('SET TRANSACTION READ ONLY');
    const { rows } = await tx.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state;
  });
  if (seen === 'done') return 'ack';
  // Make sure the row exists, free to take.
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const { rows: [row] } = await env.db.query<{ state: string; mine: boolean }>(
    `WITH t AS (SELECT gen_random_uuid()::text AS tok)
     UPDATE operations o SET
       lease_until = CASE WHEN o.state <> 'done' AND o.lease_until < now() THEN now() + interval '60 seconds' ELSE o.lease_until END,
       result      = CASE WHEN o.state <> 'done' AND o.lease_until < now() THEN to_jsonb(t.tok) ELSE o.result END
     FROM t
     WHERE o.op_key = $1
     RETURNING o.state, (o.result #>> '{}') = t.tok AS mine`,
    [key],
  );
  if (row?.mine) {
    const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
    await complete(env.db, key, sent);
    return 'ack';
  }
  return row?.state === 'done' ? 'ack' : 'retry-later';
}
