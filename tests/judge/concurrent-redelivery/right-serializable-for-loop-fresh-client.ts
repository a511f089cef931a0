// expect: right
// kind: first-writer-wins
// why: each attempt takes a fresh client, BEGINs and sets SERIALIZABLE as its first statement, reads the key and inserts or takes over an expired row; a 40001, 40P01 or 23505 rolls back and the loop tries again (the next attempt sees the winner's row and backs off), and the send happens only after a COMMIT that succeeded.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type Verdict = 'mine' | 'done' | 'busy';
const RETRYABLE = new Set(['40001', '40P01', '23505']);

async function attempt(env: Env, key: string): Promise<Verdict> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET TRANSACTION ISOLATION LEVEL SERIALIZABLE');
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    let verdict: Verdict = 'busy';
    if (!row) {
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      verdict = 'mine';
    } else if (row.state === 'done') verdict = 'done';
    else if (row.expired) {
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
  let verdict: Verdict | null = null;
  for (let i = 0; i < 4 && verdict === null; i++) {
    try {
      verdict = await attempt(env, key);
    } catch (err) {
      if (!RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      await env.sleep(50 * (i + 1));
    }
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
