// expect: wrong
// kind: result-ignored
// why: the takeover UPDATE's result is ignored and ownership is read back as "the lease is live", which is just as true for the worker whose UPDATE touched nothing because the other worker had just leased the key, so both concurrent deliveries send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '60 seconds'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now()`,
    [key],
  );
  const { rows } = await env.db.query<{ state: string; leased: boolean }>(
    'SELECT state, lease_until > now() AS leased FROM operations WHERE op_key = $1',
    [key],
  );
  if (rows[0].state === 'done') return 'ack';
  if (!rows[0].leased) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
