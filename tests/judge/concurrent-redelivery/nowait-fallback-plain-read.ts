// expect: wrong
// kind: check-then-act
// why: when FOR UPDATE NOWAIT meets the other worker's row lock (55P03) the code rolls back to a savepoint and "just reads" the row without a lock; that read sees the last committed version (lease run out) while the other worker is taking it, so both take the key (the second UPDATE by key waits, then applies) and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // The key's row exists from the first delivery on, with a lease that has already run out.
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() - interval '1 second') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  let mine = false;
  let done = false;
  try {
    await client.query('BEGIN');
    try {
      await client.query('SAVEPOINT lock_row');
      let row: { state: string; expired: boolean } | undefined;
      try {
        const locked = await client.query<{ state: string; expired: boolean }>(
          'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR UPDATE NOWAIT',
          [key],
        );
        row = locked.rows[0];
        await client.query('RELEASE SAVEPOINT lock_row');
      } catch (err) {
        if ((err as { code?: string }).code !== '55P03') throw err;
        // Someone holds the row right now: don't wait for them, just look at where it stands.
        await client.query('ROLLBACK TO SAVEPOINT lock_row');
        const seen = await client.query<{ state: string; expired: boolean }>(
          'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
          [key],
        );
        row = seen.rows[0];
      }
      done = row?.state === 'done';
      if (row && !done && row.expired) {
        await client.query(`UPDATE operations SET state = 'running', lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
        mine = true;
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  } finally {
    client.release();
  }
  if (!mine) return done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
