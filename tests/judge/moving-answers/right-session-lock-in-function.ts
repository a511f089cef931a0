// expect: right
// kind: advisory-lock
// why: a session advisory lock on the check's key, taken and released through two small SQL functions on one dedicated client, serialises the deliveries of one check: under it the stored answer is read, and only when there is none is the address looked up and the answer stored, so a second delivery waits and then hands on the first answer; a crash closes the connection and PostgreSQL frees the lock.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

const INSTALL = [`
DO $$
BEGIN
  CREATE FUNCTION check_lock(k text) RETURNS void LANGUAGE sql AS 'SELECT pg_advisory_lock(hashtext(k))';
EXCEPTION WHEN duplicate_function OR unique_violation THEN NULL;
END $$`, `
DO $$
BEGIN
  CREATE FUNCTION check_unlock(k text) RETURNS boolean LANGUAGE sql AS 'SELECT pg_advisory_unlock(hashtext(k))';
EXCEPTION WHEN duplicate_function OR unique_violation THEN NULL;
END $$`];

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  for (const sql of INSTALL) await env.db.query(sql);
  const client = await env.db.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT check_lock($1)', [key]);
    try {
      const stored = await client.query<{ result: LookupResult }>(
        `SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`,
        [key],
      );
      if (stored.rows.length) return stored.rows[0].result;
      const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
         ON CONFLICT (op_key) DO NOTHING`,
        [key, JSON.stringify(answer)],
      );
      return answer;
    } finally {
      await client.query('SELECT check_unlock($1)', [key]);
    }
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.release(broken);
  }
}
