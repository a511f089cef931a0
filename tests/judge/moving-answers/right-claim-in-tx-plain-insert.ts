// expect: right
// kind: first-writer-wins
// why: inside one transaction a stored answer is served, else a plain INSERT claims the key: an overlapping delivery's INSERT hits the primary key and fails (retry-later), so only one worker looks up; the answer is stored with complete() and served from then on.
import { opKey, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId });
  const client = await env.db.connect();
  let claimed = false;
  try {
    await client.query('BEGIN');
    const stored = await client.query<{ state: string; result: LookupResult | null; live: boolean }>(
      'SELECT state, result, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    const row = stored.rows[0];
    if (row?.state === 'done') {
      await client.query('COMMIT');
      return row.result;
    }
    if (row?.live) {
      await client.query('COMMIT');
      return 'retry-later';
    }
    if (row) await client.query('DELETE FROM operations WHERE op_key = $1', [key]);
    await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
    await client.query('COMMIT');
    claimed = true;
  } catch (err) {
    await client.query('ROLLBACK');
    if ((err as { code?: string }).code === '23505') return 'retry-later';
    throw err;
  } finally {
    client.release();
  }
  if (!claimed) return 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
