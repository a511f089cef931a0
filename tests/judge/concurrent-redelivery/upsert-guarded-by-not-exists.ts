// expect: wrong
// kind: check-then-act
// why: the "nobody holds it" test is a NOT EXISTS subquery inside the INSERT … SELECT, and the ON CONFLICT DO UPDATE that follows has no WHERE of its own ("the subquery already checked"); on PostgreSQL the subquery reads the statement's snapshot, so two workers whose statements start together both find no live row, the second's insert waits on the first's key and then updates the row unconditionally, RETURNING it, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // One atomic statement: insert (or take over an expired claim) only when no live or done row exists.
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     SELECT $1, 'running', now() + interval '60 seconds'
     WHERE NOT EXISTS (
       SELECT 1 FROM operations WHERE op_key = $1 AND (state = 'done' OR lease_until >= now())
     )
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = excluded.lease_until
     RETURNING op_key`,
    [key],
  );
  if (claimed.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
