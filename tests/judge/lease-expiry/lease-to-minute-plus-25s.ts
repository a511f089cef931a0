// expect: wrong
// kind: lease
// why: the lease ends 25 s past the next whole minute (date_trunc('minute', now()) + 85 s), from 25 s to 85 s long: a claim made in the last seconds of a minute holds for under the 30 s a send may take, so a second delivery during a slow send takes the key over and this provider, which keeps no keys, sends a second receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // the sweeper runs at :25 past each minute; a lease ends on the sweep after the next one
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', date_trunc('minute', now()) + interval '85 seconds')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < now()
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
