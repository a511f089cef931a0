// expect: right
// kind: row-lock
// why: every delivery takes LOCK TABLE operations IN SHARE ROW EXCLUSIVE MODE (a mode that conflicts with itself) before reading the key's row, then decides and writes the claim in that transaction, so two concurrent deliveries decide one after the other and only one sends.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy';
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE operations IN SHARE ROW EXCLUSIVE MODE');
    const { rows } = await client.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') verdict = 'done';
    else if (rows[0]?.live) verdict = 'busy';
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
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
