// expect: right
// kind: compare-and-set
// why: optimistic concurrency on the row's system version: the row is made to exist expired, its xmin is read, and the takeover UPDATE requires that exact xmin (plus unfinished and expired); a concurrent taker's UPDATE writes a new row version with a new xmin, so on PostgreSQL the waiting UPDATE re-checks the new version, no longer matches and returns nothing; only a worker that got the row back sends.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const seen = await env.db.query<{ state: string; expired: boolean; v: string }>(
    'SELECT state, lease_until < now() AS expired, xmin::text AS v FROM operations WHERE op_key = $1',
    [key],
  );
  const row = seen.rows[0];
  if (!row) return 'retry-later';
  if (row.state === 'done') return 'ack';
  if (!row.expired) return 'retry-later';
  // Take it only if nobody wrote the row since we read it.
  const took = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '60 seconds'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now() AND xmin = $2::text::xid
     RETURNING op_key`,
    [key, row.v],
  );
  if (took.rows.length !== 1) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
