// expect: right
// kind: row-lock
// why: the claim is a short transaction that first locks the operations table in SHARE ROW EXCLUSIVE mode, which conflicts with itself, so workers decide one at a time on what the last one committed; the send happens after COMMIT with the operation key, and complete marks it done.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function take(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE operations IN SHARE ROW EXCLUSIVE MODE');
    const seen = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = seen.rows[0];
    let answer: 'mine' | 'done' | 'busy';
    if (!row) {
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      answer = 'mine';
    } else if (row.state === 'done') {
      answer = 'done';
    } else if (row.expired) {
      await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      answer = 'mine';
    } else {
      answer = 'busy';
    }
    await client.query('COMMIT');
    client.release();
    return answer;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const got = await take(env, key);
  if (got !== 'mine') return got === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
