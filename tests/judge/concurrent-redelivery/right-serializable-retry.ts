// expect: right
// kind: first-writer-wins
// why: check and claim run in one SERIALIZABLE transaction, so of two workers that both read "no row" PostgreSQL commits one and fails the other (40001 or 23505), which backs off; the send happens after COMMIT, outside any transaction.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function claimSerializable(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const seen = await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      const row = seen.rows[0];
      let answer: 'mine' | 'done' | 'busy' = 'mine';
      if (!row) {
        await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      } else if (row.state === 'done') {
        answer = 'done';
      } else if (row.expired) {
        await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      } else {
        answer = 'busy';
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
  const c = await claimSerializable(env, key);
  if (c !== 'mine') return c === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
