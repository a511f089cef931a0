// expect: right
// kind: compare-and-set
// why: the claim records its connection's pid and backend_start; an upsert guarded by state <> 'done' takes the row over when the lease has run out or when no backend with that pid and start is left in pg_stat_activity (the owner's connection closed: it crashed), and only the worker whose upsert returned the row sends.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result)
     SELECT $1, 'running', now() + interval '60 seconds', jsonb_build_object('pid', a.pid, 'start', a.backend_start::text)
       FROM pg_stat_activity a WHERE a.pid = pg_backend_pid()
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until, result = EXCLUDED.result
       WHERE operations.state <> 'done'
         AND (operations.lease_until < now()
              OR NOT EXISTS (SELECT 1 FROM pg_stat_activity b
                             WHERE b.pid = (operations.result->>'pid')::int
                               AND b.backend_start::text = operations.result->>'start'))
     RETURNING op_key`,
    [key],
  );
  if (claimed.rows.length === 0) {
    const { rows: [row] } = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
