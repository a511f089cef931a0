// expect: right
// kind: first-writer-wins
// why: the claim runs in a SERIALIZABLE transaction; when PostgreSQL fails it (40001 at any statement or at COMMIT) the worker asks once more with a single INSERT … ON CONFLICT DO UPDATE … WHERE not done and lease run out RETURNING, which only one worker can win, and sends only when it got its row back, after that statement committed.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type Verdict = 'mine' | 'done' | 'busy';

async function serializableClaim(env: Env, key: string): Promise<Verdict | 'lost-race'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    let verdict: Verdict = 'busy';
    if (row?.state === 'done') verdict = 'done';
    else if (!row || row.expired) {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
        [key],
      );
      verdict = 'mine';
    }
    await client.query('COMMIT');
    return verdict;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    if ((err as { code?: string }).code === '40001') return 'lost-race';
    throw err;
  } finally {
    client.release();
  }
}

async function casClaim(env: Env, key: string): Promise<Verdict> {
  const { rows } = await env.db.query<{ op_key: string }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (rows.length) return 'mine';
  const seen = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
  return seen.rows[0]?.state === 'done' ? 'done' : 'busy';
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  let verdict = await serializableClaim(env, key);
  if (verdict === 'lost-race') verdict = await casClaim(env, key);
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
