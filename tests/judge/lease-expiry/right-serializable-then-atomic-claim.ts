// expect: right
// kind: first-writer-wins
// why: the claim runs in a SERIALIZABLE transaction (read, then insert or take over an expired, unfinished row); if PostgreSQL fails it (40001, 40P01, 23505) the worker falls back to lib's claim(), one atomic upsert whose WHERE re-checks state and lease on the newest row, and sends only when that returned its row, after COMMIT.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function takeSerializable(env: Env, key: string): Promise<'mine' | 'done' | 'busy' | 'conflict'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const { rows } = await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      const row = rows[0];
      let answer: 'mine' | 'done' | 'busy' = 'busy';
      if (!row) {
        await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
        answer = 'mine';
      } else if (row.state === 'done') answer = 'done';
      else if (row.expired) {
        await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
        answer = 'mine';
      }
      await client.query('COMMIT');
      return answer;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      const code = (err as { code?: string }).code;
      if (code === '40001' || code === '40P01' || code === '23505') return 'conflict';
      throw err;
    }
  } finally {
    client.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  let got = await takeSerializable(env, key);
  if (got === 'conflict') {
    // Lost a race: ask the one-statement claim, which only a single worker can win.
    const c = await claim(env.db, key, 60);
    got = c.owned ? 'mine' : c.done ? 'done' : 'busy';
  }
  if (got !== 'mine') return got === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
