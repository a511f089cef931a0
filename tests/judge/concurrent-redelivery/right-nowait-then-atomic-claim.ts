// expect: right
// kind: row-lock
// why: a fast path locks the key's row FOR UPDATE NOWAIT and takes it only when not done and expired; on 55P03 it rolls back and falls back to lib's claim(), one atomic INSERT … ON CONFLICT DO UPDATE … WHERE lease expired RETURNING, which on PostgreSQL waits for the holder and then re-checks the lease, so only one worker ever sends, after COMMIT.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function fastTake(env: Env, key: string): Promise<'mine' | 'done' | 'busy' | 'contended'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    try {
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
      return answer;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if ((err as { code?: string }).code === '55P03') return 'contended';
      throw err;
    }
  } finally {
    client.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  let got = await fastTake(env, key);
  if (got === 'contended') {
    // Someone holds the row: let the atomic claim decide (it waits, then re-checks the lease).
    const c = await claim(env.db, key, 60);
    got = c.owned ? 'mine' : c.done ? 'done' : 'busy';
  }
  if (got !== 'mine') return got === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
