// expect: wrong
// kind: result-ignored
// why: the SERIALIZABLE transaction decides "mine" from its read, and the serialization failure PostgreSQL raises on the loser's INSERT (40001: the winner's row is invisible to its snapshot) is caught, logged and rolled back without changing that decision, so the loser sends too.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function decide(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  const client = await env.db.connect();
  let answer: 'mine' | 'done' | 'busy' = 'mine';
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const { rows } = await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      const row = rows[0];
      if (row && row.state === 'done') answer = 'done';
      else if (row && !row.expired) answer = 'busy';
      else
        await client.query(
          `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
           ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
          [key],
        );
      await client.query('COMMIT');
    } catch (err) {
      // The claim row is only bookkeeping; the read above already told us where we stand.
      env.log('claim not recorded:', (err as Error).message);
      await client.query('ROLLBACK');
    }
  } finally {
    client.release();
  }
  return answer;
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await decide(env, key);
  if (c !== 'mine') return c === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
