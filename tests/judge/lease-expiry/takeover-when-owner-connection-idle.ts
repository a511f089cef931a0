// expect: wrong
// kind: lease
// why: it takes a running claim over when the owner's backend shows state 'idle' in pg_stat_activity, but a worker waiting on the e-mail provider runs no query and its connection is idle on PostgreSQL: a second delivery takes the live claim over and sends a second receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result)
     VALUES ($1, 'running', now() + interval '60 seconds', jsonb_build_object('pid', pg_backend_pid()))
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until, result = EXCLUDED.result
       WHERE operations.state <> 'done'
         AND (operations.lease_until < now()
              OR EXISTS (SELECT 1 FROM pg_stat_activity b
                         WHERE b.pid = (operations.result->>'pid')::int AND b.state = 'idle'))
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
