// expect: wrong
// kind: lease
// why: the claim locks the key's row FOR UPDATE NOWAIT, but a 55P03 ("another worker is on this row right now") is caught and the code reads the row unlocked and takes it when it looks unfinished and expired; on PostgreSQL two workers arriving together after a dead worker's lease ran out both see it expired, the one refused by NOWAIT skips the lock and overwrites the other's fresh claim, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  let mine = false;
  try {
    await client.query('BEGIN');
    let row: { state: string; expired: boolean } | undefined;
    try {
      await client.query('SAVEPOINT lock_try');
      row = (await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR UPDATE NOWAIT',
        [key],
      )).rows[0];
    } catch (err) {
      // Busy for a moment: the lease below still tells us whether the claim is free.
      await client.query('ROLLBACK TO SAVEPOINT lock_try');
      env.log('row busy, reading it without the lock:', err instanceof Error ? err.message : String(err));
      row = (await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      )).rows[0];
    }
    if (row?.state === 'done') {
      await client.query('COMMIT');
      return 'ack';
    }
    if (row && row.expired) {
      await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      mine = true;
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  if (!mine) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
