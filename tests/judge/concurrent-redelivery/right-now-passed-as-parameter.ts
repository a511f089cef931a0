// expect: right
// kind: compare-and-set
// why: the clock is passed as the parameter 'now', which PostgreSQL reads with the parameter's type (timestamptz, from the comparison and the column) as the transaction's start, exactly now(); otherwise it is the solution's one-statement claim with a 60 s lease and a takeover of expired, unfinished rows.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', $2::timestamptz + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < $2::timestamptz
     RETURNING op_key`,
    [key, 'now'],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
