// expect: right
// kind: row-lock
// why: a short transaction makes sure the key's row exists (with a lease already run out), locks it FOR UPDATE NOWAIT, where a worker finding it locked gets 55P03 and comes back later, and takes it only when it is not done and its lease ran out; the send happens after COMMIT and the row is marked done after it.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function take(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    const { rows } = await client.query<{ state: string; free: boolean }>(
      'SELECT state, lease_until < now() AS free FROM operations WHERE op_key = $1 FOR UPDATE NOWAIT',
      [key],
    );
    const row = rows[0]!;
    const answer = row.state === 'done' ? 'done' : row.free ? 'mine' : 'busy';
    if (answer === 'mine') await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
    await client.query('COMMIT');
    client.release();
    return answer;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
    if ((err as { code?: string }).code === '55P03') return 'busy';
    throw err;
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const got = await take(env, key);
  if (got !== 'mine') return got === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
