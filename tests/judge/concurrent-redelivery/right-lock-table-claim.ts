// expect: right
// kind: row-lock
// why: a short transaction locks the operations table in SHARE ROW EXCLUSIVE mode, which conflicts with itself, so the two workers' read-then-claim sections run one after the other; the claim commits before the send, which carries the key, and a lease lets a takeover follow a crash.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: 'mine' | 'ack' | 'retry-later';
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE operations IN SHARE ROW EXCLUSIVE MODE');
    const row = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const found = row.rows[0];
    if (!found) {
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      verdict = 'mine';
    } else if (found.state === 'done') verdict = 'ack';
    else if (found.expired) {
      await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      verdict = 'mine';
    } else verdict = 'retry-later';
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
