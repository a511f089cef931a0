// expect: right
// kind: advisory-lock
// why: a short transaction holding pg_advisory_xact_lock on the order's key reads the row and inserts it or takes over an expired unfinished claim; the send happens after COMMIT with the key, so a republished copy finds the key claimed or done, and a takeover after a crash is deduped by the provider.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function take(env: Env, key: string): Promise<'mine' | 'ack' | 'retry-later'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    const row = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const found = row.rows[0];
    let verdict: 'mine' | 'ack' | 'retry-later' = 'retry-later';
    if (!found) {
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      verdict = 'mine';
    } else if (found.state === 'done') verdict = 'ack';
    else if (found.expired) {
      await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      verdict = 'mine';
    }
    await client.query('COMMIT');
    return verdict;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await take(env, key);
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
