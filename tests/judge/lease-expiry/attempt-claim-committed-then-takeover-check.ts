// expect: wrong
// kind: wrong-key
// why: the claim whose answer is read is an attempt row keyed on the operation key plus this attempt's random number (committed in a transaction of its own), which no other worker ever inserts, so it always succeeds; the next transaction's "absent or expired?" read of the operation's own row locks nothing, so on PostgreSQL two workers both see it free, both upsert it, commit and send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const attempt = env.random.int(1_000_000_000);
  await env.db.query(
    'CREATE TABLE IF NOT EXISTS receipt_attempts (op_key text NOT NULL, attempt bigint NOT NULL, lease_until timestamptz NOT NULL, PRIMARY KEY (op_key, attempt))',
  );
  const client = await env.db.connect();
  let decision: 'send' | 'ack' | 'retry-later' = 'retry-later';
  try {
    // 1. Journal this attempt (its own lease, so a dead attempt ages out).
    await client.query('BEGIN');
    const j = await client.query(
      `INSERT INTO receipt_attempts (op_key, attempt, lease_until) VALUES ($1, $2, now() + interval '60 seconds')
       ON CONFLICT (op_key, attempt) DO NOTHING RETURNING attempt`,
      [key, attempt],
    );
    if (j.rows.length === 0) throw new Error('attempt id reused');
    await client.query('COMMIT');
    // 2. Take the operation if nobody holds a live lease on it.
    await client.query('BEGIN');
    const row = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const r = row.rows[0];
    if (r?.state === 'done') decision = 'ack';
    else if (!r || r.expired) {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      decision = 'send';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (decision !== 'send') return decision;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
