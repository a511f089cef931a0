// expect: wrong
// kind: check-then-act
// why: the key is checked with a plain SELECT and claimed with an INSERT … ON CONFLICT DO NOTHING whose answer is never read, in a READ COMMITTED transaction (the comment only explains why it is not stricter), so on PostgreSQL two overlapping workers both find no claim, both commit and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy';
  try {
    await client.query('BEGIN');
    const seen = await client.query<{ state: string; live: boolean }>(
      `SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1
       -- default_transaction_isolation stays read committed: serializable retries cost more than they save here`,
      [key],
    );
    const row = seen.rows[0];
    if (row?.state === 'done') verdict = 'done';
    else if (row?.live) verdict = 'busy';
    else {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until WHERE operations.state <> 'done'`,
        [key],
      );
      verdict = 'mine';
    }
    await client.query('COMMIT');
    client.release();
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent)]);
  return 'ack';
}
