// expect: right
// kind: first-writer-wins
// why: the key's row is read and then inserted, or taken over when its lease (on the database's clock) ran out and it is not done, in one SERIALIZABLE transaction, so of two workers that read the same row PostgreSQL commits one and fails the other (40001 or 23505), which comes back later; the send happens after COMMIT.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function take(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const seen = await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      const row = seen.rows[0];
      let answer: 'mine' | 'done' | 'busy' = 'busy';
      if (!row) {
        await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
        answer = 'mine';
      } else if (row.state === 'done') {
        answer = 'done';
      } else if (row.expired) {
        await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
        answer = 'mine';
      }
      await client.query('COMMIT');
      return answer;
    } catch (err) {
      await client.query('ROLLBACK');
      const code = (err as { code?: string }).code;
      if (code === '40001' || code === '23505') return 'busy';
      throw err;
    }
  } finally {
    client.release();
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
