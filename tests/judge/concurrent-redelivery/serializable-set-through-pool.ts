// expect: wrong
// kind: check-then-act
// why: SET SESSION CHARACTERISTICS through pg.Pool's query reaches one pooled connection only, and the client connect() hands out may be another, still READ COMMITTED: two workers both read "no live claim", both upsert (the second's DO UPDATE waits, then overwrites), both commit and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function claimSerializable(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  // make every transaction of this pool serializable
  await env.db.query('SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE');
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      const row = rows[0];
      let answer: 'mine' | 'done' | 'busy' = 'mine';
      if (row?.state === 'done') answer = 'done';
      else if (row && !row.expired) answer = 'busy';
      else {
        await client.query(
          `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
           ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
          [key],
        );
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
