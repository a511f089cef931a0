// expect: wrong
// kind: memory-cache
// why: the first answer is kept in a TEMP table, which on PostgreSQL belongs to one connection and vanishes when its worker crashes: a redelivery on the other worker, or after the restart, finds no stored answer, looks up again after the data moved, and the CRM hears something else.
import { opKey } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  await env.db.query(
    `CREATE TEMP TABLE IF NOT EXISTS answers (op_key text PRIMARY KEY, answer jsonb, lease_until timestamptz NOT NULL)`,
  );
  const won = await env.db.query(
    `INSERT INTO answers (op_key, lease_until) VALUES ($1, now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE answers.answer IS NULL AND answers.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (won.rows.length === 0) {
    const r = await env.db.query<{ answer: LookupResult | null }>('SELECT answer FROM answers WHERE op_key = $1', [key]);
    return r.rows[0]?.answer ?? 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query('UPDATE answers SET answer = $2 WHERE op_key = $1', [key, JSON.stringify(answer)]);
  return answer;
}
