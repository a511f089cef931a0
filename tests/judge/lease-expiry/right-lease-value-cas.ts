// expect: right
// kind: compare-and-set
// why: optimistic concurrency on the lease itself: the row's lease_until is read, and an expired unfinished claim is taken only by an UPDATE that requires the very lease value read (a first claim is INSERT … ON CONFLICT DO NOTHING RETURNING); a concurrent taker writes a new lease, so on PostgreSQL the waiting UPDATE re-checks the new version, no longer matches, and returns nothing.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const fresh = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  if (fresh.rows.length === 0) {
    const seen = await env.db.query<{ state: string; expired: boolean; lease: string }>(
      `SELECT state, lease_until < now() AS expired, lease_until::text AS lease FROM operations WHERE op_key = $1`,
      [key],
    );
    const row = seen.rows[0];
    if (!row) return 'retry-later';
    if (row.state === 'done') return 'ack';
    if (!row.expired) return 'retry-later';
    const took = await env.db.query(
      `UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state = 'running' AND lease_until = $2::timestamptz AND lease_until < now()
       RETURNING op_key`,
      [key, row.lease],
    );
    if (took.rows.length !== 1) return 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
