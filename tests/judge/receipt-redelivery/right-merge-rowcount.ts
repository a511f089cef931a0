// expect: right
// kind: compare-and-set
// why: one MERGE (PostgreSQL 15, no RETURNING) inserts the claim or takes over an expired unfinished one, and result.rowCount says whether it did; a concurrent first insert fails the loser with 23505, read as "someone else has it"; the send carries the key and a done key is acknowledged.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function tryClaim(env: Env, key: string): Promise<boolean> {
  try {
    const r = await env.db.query(
      `MERGE INTO operations AS o
       USING (SELECT $1::text AS k) AS s ON o.op_key = s.k
       WHEN MATCHED AND o.state <> 'done' AND o.lease_until < now() THEN
         UPDATE SET state = 'running', lease_until = now() + interval '60 seconds'
       WHEN NOT MATCHED THEN
         INSERT (op_key, state, lease_until) VALUES (s.k, 'running', now() + interval '60 seconds')`,
      [key],
    );
    return r.rowCount === 1;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return false; // lost the race to insert
    throw err;
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  if (!(await tryClaim(env, key))) {
    const { rows } = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
