// expect: right
// kind: compare-and-set
// why: the claim is one upsert whose (xmax = 0) is true only for the worker whose INSERT created the row (the other's conflicting INSERT waits and then updates it, xmax = its txid), an expired running row is taken by a guarded UPDATE … RETURNING, and only the owner sends; the fast-path read transaction before it decides nothing, and the loser's row back (fresh = false, state 'running') is no win.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // Fast path: most redeliveries find the receipt done already.
  const done = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done';
  });
  if (done) return 'ack';
  // One round trip: create the row, or get what is there.
  const { rows: [row] } = await env.db.query<{ fresh: boolean; state: string; expired: boolean }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = operations.state
     RETURNING (xmax = 0) AS fresh, state, lease_until < now() AS expired`,
    [key],
  );
  if (!row.fresh) {
    if (row.state === 'done') return 'ack';
    if (!row.expired) return 'retry-later';
    const taken = await env.db.query(
      `UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state = 'running' AND lease_until < now() RETURNING op_key`,
      [key],
    );
    if (taken.rows.length === 0) return 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
