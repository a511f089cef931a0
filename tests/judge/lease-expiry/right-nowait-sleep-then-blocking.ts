// expect: right
// kind: row-lock
// why: the key's row is locked FOR UPDATE NOWAIT; on 55P03 the worker sleeps and tries again in a new transaction with a waiting FOR UPDATE, which returns the newest row once the holder committed, so it sees the new lease (or done) and backs off; only a worker that took the expired row sends, after COMMIT.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type Verdict = 'mine' | 'done' | 'busy';

async function lockAndTake(env: Env, key: string, lockClause: string): Promise<Verdict> {
  // The key's row exists from the first delivery on, with a lease already run out.
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ state: string; expired: boolean }>(
        `SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 ${lockClause}`,
        [key],
      );
      const row = rows[0]!;
      const verdict: Verdict = row.state === 'done' ? 'done' : row.expired ? 'mine' : 'busy';
      if (verdict === 'mine') await client.query(`UPDATE operations SET state = 'running', lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      await client.query('COMMIT');
      return verdict;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    client.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  let verdict: Verdict;
  try {
    verdict = await lockAndTake(env, key, 'FOR UPDATE NOWAIT');
  } catch (err) {
    if ((err as { code?: string }).code !== '55P03') throw err;
    await env.sleep(250);
    verdict = await lockAndTake(env, key, 'FOR UPDATE');
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
