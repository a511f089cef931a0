// expect: wrong
// kind: check-then-act
// why: the placeholder row is read FOR KEY SHARE, which does not conflict with the other worker's KEY SHARE nor with the FOR NO KEY UPDATE lock its UPDATE of state/lease takes, so on PostgreSQL both overlapping transactions read the unclaimed placeholder, the second UPDATE (keyed on op_key alone) waits and then overwrites, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // Make sure there is a row to lock: an unclaimed placeholder whose lease has long run out.
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity')
     ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await client.query('BEGIN');
    // KEY SHARE is the lightest row lock: enough to pin the row while we decide, and it never
    // blocks the other worker's reads.
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR KEY SHARE',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') verdict = 'done';
    else if (row?.expired) {
      await client.query(
        `UPDATE operations SET state = 'running', lease_until = now() + interval '60 seconds' WHERE op_key = $1`,
        [key],
      );
      verdict = 'mine';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
