// expect: wrong
// kind: check-then-act
// why: FOR KEY SHARE does not conflict with itself nor with the FOR NO KEY UPDATE lock a non-key UPDATE takes, so on PostgreSQL two workers both lock and read the expired row, both UPDATE it (the second after the first commits, with no WHERE re-check) and both send.
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
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR KEY SHARE',
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
