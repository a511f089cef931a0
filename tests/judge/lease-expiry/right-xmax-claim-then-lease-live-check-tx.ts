// expect: right
// kind: compare-and-set
// why: the claim is one upsert whose (xmax = 0) is true only for the worker that created the row (the other's conflicting INSERT updates it instead), an expired, unfinished row is taken over by UPDATE … WHERE lease_until < now() … RETURNING, and the short read transaction before the send only backs off when the worker's own lease has already run out; it never lets a second worker in.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
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
  // Before the slow send: is my lease still running? (a worker paused past it must not send)
  const live = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ live: boolean }>(
      `SELECT state = 'running' AND lease_until > now() AS live FROM operations WHERE op_key = $1`,
      [key],
    );
    return rows[0]?.live === true;
  });
  if (!live) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
