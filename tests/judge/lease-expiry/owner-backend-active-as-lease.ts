// expect: wrong
// kind: lease
// why: instead of a timed lease the claim records its backend pid and may be taken over once no pg_stat_activity row with that pid is in state 'active', taking "active" for "connected"; on PostgreSQL the owner's connection sits 'idle' while it waits on the e-mail provider, so a redelivery takes the claim over and sends the receipt a second time.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // The claim lives as long as its owner's database session does: a crashed worker's session goes away.
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result)
     VALUES ($1, 'running', 'infinity', jsonb_build_object('owner', pg_backend_pid()))
     ON CONFLICT (op_key) DO UPDATE SET result = EXCLUDED.result
       WHERE operations.state <> 'done'
         AND ((operations.result->>'owner')::int = pg_backend_pid()
              OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                             WHERE a.pid = (operations.result->>'owner')::int AND a.state = 'active'))
     RETURNING op_key`,
    [key],
  );
  if (claimed.rows.length === 0) {
    const row = await env.db.query('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
