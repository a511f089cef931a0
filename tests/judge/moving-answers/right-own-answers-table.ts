// expect: right
// kind: own-dedupe-table
// why: the first answer is kept in a table of our own with the (order, address) primary key and ON CONFLICT DO NOTHING, and every handling returns the row that is stored, so however many lookups race or replay, downstream sees the first stored answer only.
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS deliverability_answers (
       order_id bigint NOT NULL, email text NOT NULL, answer jsonb NOT NULL,
       PRIMARY KEY (order_id, email))`,
  );
  const stored = await env.db.query<{ answer: LookupResult }>(
    'SELECT answer FROM deliverability_answers WHERE order_id = $1 AND email = $2',
    [msg.orderId, msg.customer],
  );
  if (stored.rows.length) return stored.rows[0].answer;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query(
    `INSERT INTO deliverability_answers (order_id, email, answer) VALUES ($1, $2, $3)
     ON CONFLICT (order_id, email) DO NOTHING`,
    [msg.orderId, msg.customer, JSON.stringify(answer)],
  );
  // whoever stored first wins; return what is stored, not what we heard
  const first = await env.db.query<{ answer: LookupResult }>(
    'SELECT answer FROM deliverability_answers WHERE order_id = $1 AND email = $2',
    [msg.orderId, msg.customer],
  );
  return first.rows[0].answer;
}
