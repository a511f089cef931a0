// expect: wrong
// kind: check-then-act
// why: the decision is made in a transaction whose "no live claim" SELECT locks nothing and whose upsert overwrites any running row unconditionally; the per-order session lock taken afterwards only makes the two workers send one after the other, since the re-read under it asks only whether the lease is live (true for both, done or not, no owner recorded), so on PostgreSQL both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') verdict = 'done';
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
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  // Double-check under the order's lock before sending.
  const locked = await env.db.connect();
  try {
    await locked.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    // Our lease must still be live: a lease that ran out may have been taken over.
    const again = await locked.query<{ live: boolean }>('SELECT lease_until > now() AS live FROM operations WHERE op_key = $1', [key]);
    if (!again.rows[0]?.live) return 'retry-later';
    const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
    await complete(locked, key, sent);
  } finally {
    await locked.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    locked.release();
  }
  return 'ack';
}
