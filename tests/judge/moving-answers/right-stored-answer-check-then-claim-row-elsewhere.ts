// expect: right
// kind: own-dedupe-table
// why: the lookup rests on a plain INSERT into answer_claims whose primary key makes a concurrent worker's INSERT wait and then fail (23505), so only one worker holds a live claim and asks; a replay after that is served the stored first answer.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

async function ensureClaimsTable(env: Env) {
  try {
    await env.db.query(
      `CREATE TABLE IF NOT EXISTS answer_claims (op_key text PRIMARY KEY, lease_until timestamptz NOT NULL)`,
    );
  } catch (err) {
    const { rows } = await env.db.query(`SELECT to_regclass('answer_claims') AS t`);
    if (!rows[0]?.t) throw err;
  }
}

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  await ensureClaimsTable(env);
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const stored = await client.query<{ state: string; result: unknown }>(
      'SELECT state, result FROM operations WHERE op_key = $1',
      [key],
    );
    if (stored.rows[0]?.state === 'done') {
      await client.query('COMMIT');
      return stored.rows[0].result as LookupResult;
    }
    // Clear a claim whose lease ran out (its worker died), then claim: the primary key decides.
    await client.query('DELETE FROM answer_claims WHERE op_key = $1 AND lease_until < now()', [key]);
    try {
      await client.query(`INSERT INTO answer_claims (op_key, lease_until) VALUES ($1, now() + interval '60 seconds')`, [key]);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') {
        await client.query('ROLLBACK');
        return 'retry-later';
      }
      throw err;
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
    [key, JSON.stringify(answer ?? null)],
  );
  return answer;
}
