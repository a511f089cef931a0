// expect: right
// kind: compare-and-set
// why: the INSERT … ON CONFLICT DO UPDATE … WHERE (expired) stamps the claimer's transaction id, and a second worker's upsert waits for the first to commit and then re-checks the lease on the latest row, so it changes nothing; its next SELECT (a fresh snapshot in READ COMMITTED) reads the first worker's stamp, not its own, and it steps aside.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until, result)
       VALUES ($1, 'running', now() + interval '60 seconds', jsonb_build_object('claimedBy', txid_current()))
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until, result = EXCLUDED.result
       WHERE operations.state <> 'done' AND operations.lease_until < now()`,
      [key],
    );
    // Who holds the claim now? Ours only if the stamp is our own transaction's.
    const { rows } = await tx.query<{ state: string; mine: boolean }>(
      `SELECT state, state = 'running' AND (result->>'claimedBy')::bigint = txid_current() AS mine FROM operations WHERE op_key = $1`,
      [key],
    );
    const row = rows[0];
    if (row.mine) return 'mine';
    return row.state === 'done' ? 'ack' : 'retry-later';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
