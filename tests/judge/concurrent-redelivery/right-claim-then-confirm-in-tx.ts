// expect: right
// kind: compare-and-set
// why: the decision is claim()'s single atomic INSERT … ON CONFLICT DO UPDATE … RETURNING, committed on its own; the transaction after it only re-reads the worker's own claimed row and stamps it, so only the worker that got the row back ever reaches the send.
import { opKey, claim, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  // Belt and braces: confirm the claim is still ours and note that we are about to send.
  const stillMine = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (rows[0]?.state !== 'running') return false;
    await tx.query(`UPDATE operations SET result = '{"phase":"sending"}' WHERE op_key = $1`, [key]);
    return true;
  });
  if (!stillMine) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
