// expect: right
// kind: row-lock
// why: the expired row is read FOR SHARE and then updated in the same transaction: two workers can both hold the share lock, but then each one's UPDATE waits for the other's lock and PostgreSQL fails one of them (deadlock detected), whose error rolls it back before any send; a worker that reads after the other's UPDATE waits for its COMMIT and sees the fresh lease.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // The key's row always exists (born expired), so there is something to lock.
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() - interval '1 second')
     ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  let decision: 'send' | 'ack' | 'retry-later';
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR SHARE',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') decision = 'ack';
    else if (!row?.expired) decision = 'retry-later';
    else {
      await client.query(`UPDATE operations SET state = 'running', lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      decision = 'send';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (decision !== 'send') return decision;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
