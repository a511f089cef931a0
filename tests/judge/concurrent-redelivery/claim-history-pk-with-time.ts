// expect: wrong
// kind: check-then-act
// why: the claims table's primary key is (order_id, claimed_at) with claimed_at = now(), so two workers that both pass the "any claim yet?" check insert two different rows (their transactions start microseconds apart on a real server) and both send.
import type { Env, ReceiptMessage } from 'effectively-once';

const SCHEMA = `CREATE TABLE IF NOT EXISTS receipt_claims (
  order_id   bigint NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  worker     text NOT NULL,
  sent       boolean NOT NULL DEFAULT false,
  PRIMARY KEY (order_id, claimed_at)
)`;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  try {
    await env.db.query(SCHEMA);
  } catch {
    // created by the other worker at the same moment
  }
  // history of who claimed what, keyed so two claims can never collide
  const prior = await env.db.query<{ sent: boolean; live: boolean }>(
    `SELECT bool_or(sent) AS sent, bool_or(claimed_at > now() - interval '60 seconds') AS live
       FROM receipt_claims WHERE order_id = $1`,
    [msg.orderId],
  );
  if (prior.rows[0]?.sent) return 'ack';
  if (prior.rows[0]?.live) return 'retry-later';
  const mine = await env.db.query(
    'INSERT INTO receipt_claims (order_id, worker) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING claimed_at',
    [msg.orderId, env.process],
  );
  if (mine.rows.length === 0) return 'retry-later';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query('UPDATE receipt_claims SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
