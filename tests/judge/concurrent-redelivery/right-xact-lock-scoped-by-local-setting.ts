// expect: right
// kind: advisory-lock
// why: inside each transaction the scope is set LOCAL first, so the xact lock's key is hashtext('receipt-email:<order>') for every worker: the two take turns, and in READ COMMITTED the one that waited reads the other's committed running row and backs off (the usual nullif(current_setting(…, true), '') idiom makes the key NULL only when evaluated outside the transaction, where the setting is gone).
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await client.query('BEGIN');
    // Scope for this transaction's locks and audit triggers.
    await client.query(`SELECT set_config('receipts.scope', 'receipt-email', true)`);
    await client.query(`SELECT pg_advisory_xact_lock(hashtext(nullif(current_setting('receipts.scope', true), '') || ':' || $1))`, [String(msg.orderId)]);
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') verdict = 'done';
    else if (row && !row.expired) verdict = 'busy';
    else {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      verdict = 'mine';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
