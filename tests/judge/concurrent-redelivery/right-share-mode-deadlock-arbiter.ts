// expect: right
// kind: table-lock
// why: LOCK TABLE … IN SHARE MODE admits two readers, but SHARE conflicts with the ROW EXCLUSIVE lock every write needs, so if two workers both hold it and both read "no live claim", each one's write waits for the other's SHARE lock: PostgreSQL detects the deadlock and fails one (40P01), which rolls back and retries later; the other commits its claim before sending.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type Verdict = 'mine' | 'done' | 'busy';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: Verdict;
  try {
    await client.query('BEGIN');
    try {
      // Nobody may write operations while we decide; a writer that already holds it makes us wait.
      await client.query('LOCK TABLE operations IN SHARE MODE');
      const { rows } = await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      const row = rows[0];
      if (row && row.state === 'done') verdict = 'done';
      else if (row && !row.expired) verdict = 'busy';
      else {
        await client.query(
          `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
           ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
          [key],
        );
        verdict = 'mine';
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      // Two deciders upgraded at once: PostgreSQL broke the deadlock by failing us. The other one won.
      if ((err as { code?: string }).code === '40P01') verdict = 'busy';
      else throw err;
    }
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
