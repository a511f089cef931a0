// expect: right
// kind: first-writer-wins
// why: every delivery may look up, but only the first answer is kept (ON CONFLICT DO NOTHING) and every delivery hands on the stored one, never its own.
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS first_answers (order_id integer PRIMARY KEY, answer jsonb NOT NULL)');
  const stored = await env.db.query<{ answer: LookupResult }>('SELECT answer FROM first_answers WHERE order_id = $1', [msg.orderId]);
  if (stored.rows.length > 0) return stored.rows[0].answer;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query('INSERT INTO first_answers (order_id, answer) VALUES ($1, $2) ON CONFLICT (order_id) DO NOTHING', [
    msg.orderId,
    JSON.stringify(answer),
  ]);
  const kept = await env.db.query<{ answer: LookupResult }>('SELECT answer FROM first_answers WHERE order_id = $1', [msg.orderId]);
  return kept.rows[0].answer;
}
