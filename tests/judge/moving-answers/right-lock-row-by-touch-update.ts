// expect: right
// kind: row-lock
// why: the lock row exists before the transaction and is never deleted, so the UPDATE that touches it always row-locks it: a concurrent worker's UPDATE waits for the first COMMIT, and its next SELECT (a fresh READ COMMITTED snapshot) sees the first worker's claim or stored answer.
import { opKey, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  try {
    await env.db.query('CREATE TABLE IF NOT EXISTS answer_locks (op_key text PRIMARY KEY, touched_at timestamptz)');
  } catch (err) {
    const { rows } = await env.db.query(`SELECT to_regclass('answer_locks') AS t`);
    if (!rows[0]?.t) throw err;
  }
  await env.db.query('INSERT INTO answer_locks (op_key) VALUES ($1) ON CONFLICT (op_key) DO NOTHING', [key]);

  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // Touching the row locks it until COMMIT: the other worker's UPDATE waits here.
    await client.query('UPDATE answer_locks SET touched_at = now() WHERE op_key = $1', [key]);
    const { rows } = await client.query<{ state: string; live: boolean; result: unknown }>(
      'SELECT state, lease_until > now() AS live, result FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row && (row.state === 'done' || row.live)) {
      await client.query('COMMIT');
      return row.state === 'done' ? (row.result as LookupResult) : 'retry-later';
    }
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
      [key],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
