// expect: right
// kind: compare-and-set
// why: the row is created already expired and taken by one UPDATE that re-checks state and a lease kept on statement_timestamp(), the database's clock, with its returned row read, so one worker at a time holds a live 60 s lease and a dead worker's claim is taken over once it runs out.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const took = await env.db.query(
    `UPDATE operations SET lease_until = statement_timestamp() + interval '60 seconds'
     WHERE op_key = $1 AND state = 'running' AND lease_until < statement_timestamp() RETURNING op_key`,
    [key],
  );
  if (took.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
