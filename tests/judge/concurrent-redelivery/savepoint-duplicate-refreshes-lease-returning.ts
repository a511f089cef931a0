// expect: wrong
// kind: result-ignored
// why: when its INSERT fails with 23505 the worker rolls back to the savepoint and "refreshes" the lease with an UPDATE … RETURNING that has no expiry or owner guard, which returns the other worker's live row, and it sends: on PostgreSQL two workers that both read no row both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let mine = false;
  let done = false;
  try {
    await client.query('BEGIN');
    const { rows: [row] } = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (row) done = row.state === 'done';
    else {
      await client.query('SAVEPOINT claim');
      try {
        await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
        mine = true;
      } catch (err) {
        if ((err as { code?: string }).code !== '23505') throw err;
        await client.query('ROLLBACK TO SAVEPOINT claim');
        // Someone raced us: refresh the lease so the claim stays alive while we send.
        const refreshed = await client.query(
          `UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1 AND state = 'running' RETURNING op_key`,
          [key],
        );
        mine = refreshed.rows.length > 0;
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  if (!mine) return done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
