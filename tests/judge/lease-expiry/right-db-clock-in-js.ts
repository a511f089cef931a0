// expect: right
// kind: compare-and-set
// why: the lease is computed in JavaScript but from the database's clock, read with SELECT now() just before the claim, never from the worker's own clock; the row is created expired and taken by an UPDATE that re-checks state and lease with its row count read, so one worker at a time holds a live 60 s claim.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const clock = await env.db.query<{ now: Date | string }>('SELECT now() AS now');
  const dbNow = new Date(clock.rows[0].now).getTime();
  const took = await env.db.query(
    `UPDATE operations SET lease_until = $2::timestamptz
     WHERE op_key = $1 AND state = 'running' AND lease_until < $3::timestamptz RETURNING op_key`,
    [key, new Date(dbNow + 60_000).toISOString(), new Date(dbNow).toISOString()],
  );
  if (took.rows.length !== 1) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
