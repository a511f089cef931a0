// expect: right
// kind: compare-and-set
// why: the lease is 45 s from the claim's whole second (date_trunc('second', now()) + 45 s, so at least 44 s): longer than the 30 s a send may take, set and compared on the database's clock, and the takeover only takes a row that is not done and whose lease has passed.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', date_trunc('second', now()) + interval '45 seconds')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until <= now()
     RETURNING op_key`,
    [key],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
