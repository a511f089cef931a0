// expect: right
// kind: first-writer-wins
// why: a plain INSERT lets the primary key pick one winner (the loser's 23505 is caught and read as "taken"), an expired unfinished claim is taken over by an UPDATE whose row count is checked, and the send carries the key.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function take(env: Env, key: string): Promise<boolean> {
  try {
    await env.db.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
  }
  const over = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '60 seconds'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now() RETURNING op_key`,
    [key],
  );
  return over.rows.length === 1;
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  if (!(await take(env, key))) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
