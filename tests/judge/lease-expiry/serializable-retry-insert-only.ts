// expect: wrong
// kind: check-then-act
// why: on a serialization failure (40001) the retry re-runs only the write, in a fresh transaction, as an upsert whose DO UPDATE has no guard, and takes its success as ownership; the read that decided is not repeated, so the worker that lost the SERIALIZABLE race overwrites the winner's live claim and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const UPSERT = `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
  ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`;

async function claimSerializable(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    let answer: 'mine' | 'done' | 'busy' = 'mine';
    try {
      const { rows } = await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      const row = rows[0];
      if (row && row.state === 'done') answer = 'done';
      else if (row && !row.expired) answer = 'busy';
      else await client.query(UPSERT, [key]);
      await client.query('COMMIT');
      return answer;
    } catch (err) {
      await client.query('ROLLBACK');
      if ((err as { code?: string }).code !== '40001') throw err;
      // Retry the claim: the decision was already made above, only the write has to go through.
      await client.query(UPSERT, [key]);
      return answer;
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
