// expect: right
// kind: compare-and-set
// why: the solution's claim with the lease set and compared on clock_timestamp(), the database server's own clock (wall time, not the transaction start, which is the same thing for one autocommit statement), so exactly one of two workers gets the row back and sends.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const won = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', clock_timestamp() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = clock_timestamp() + interval '60 seconds'
       WHERE operations.state <> 'done' AND operations.lease_until < clock_timestamp()
     RETURNING op_key`,
    [key],
  );
  if (won.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
