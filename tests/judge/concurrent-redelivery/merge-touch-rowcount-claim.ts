// expect: wrong
// kind: check-then-act
// why: the MERGE claim "touches" a live row too (WHEN MATCHED THEN UPDATE SET lease_until = CASE … ELSE lease_until END) so its rowCount is 1 on every path, and the worker takes 1 as "mine": the duplicate delivery of m1 finds worker-1's running claim, its MERGE still counts one row, and both workers send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  let claimed = 0;
  try {
    const r = await env.db.query(
      `MERGE INTO operations AS o
       USING (SELECT $1::text AS k) AS s ON o.op_key = s.k
       WHEN MATCHED AND o.state = 'done' THEN DO NOTHING
       WHEN MATCHED THEN UPDATE SET lease_until = CASE WHEN o.lease_until < now()
                                                     THEN now() + interval '60 seconds' ELSE o.lease_until END
       WHEN NOT MATCHED THEN INSERT (op_key, state, lease_until) VALUES (s.k, 'running', now() + interval '60 seconds')`,
      [key],
    );
    claimed = r.rowCount ?? 0;
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
  }
  if (claimed !== 1) {
    const { rows } = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done' WHERE op_key = $1`, [key]);
  return 'ack';
}
