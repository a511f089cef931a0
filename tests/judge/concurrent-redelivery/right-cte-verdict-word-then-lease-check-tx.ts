// expect: right
// kind: cte
// why: the claim is one statement: a CTE upsert whose DO UPDATE takes only an expired, unfinished row, answering 'mine' exactly when its INSERT or takeover returned the row (the other worker's waits and gets 'busy'); the read transaction after it only makes the owner back off when its own lease has already run out, and lets nobody else in.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows: [claim] } = await env.db.query<{ verdict: 'mine' | 'busy' }>(
    `WITH took AS (
       INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
         WHERE operations.state <> 'done' AND operations.lease_until < now()
       RETURNING op_key)
     SELECT CASE WHEN EXISTS (SELECT 1 FROM took) THEN 'mine' ELSE 'busy' END AS verdict`,
    [key],
  );
  if (claim.verdict !== 'mine') {
    const { rows: [row] } = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row?.state === 'done' ? 'ack' : 'retry-later';
  }
  const live = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ live: boolean }>(`SELECT lease_until > now() AS live FROM operations WHERE op_key = $1`, [key]);
    return rows[0]?.live === true;
  });
  if (!live) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
