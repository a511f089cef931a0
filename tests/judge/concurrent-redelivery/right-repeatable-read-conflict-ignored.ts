// expect: right
// kind: first-writer-wins
// why: the check and the claim run in one REPEATABLE READ transaction; the INSERT … ON CONFLICT DO NOTHING's answer is not read, but when the conflicting row was committed by an overlapping worker (invisible to this snapshot) PostgreSQL fails the INSERT with 40001 instead of doing nothing, so only one worker ever reaches the send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const seen = await client.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    const row = seen.rows[0];
    if (row && (row.state === 'done' || row.live)) {
      await client.query('COMMIT');
      return row.state === 'done' ? 'ack' : 'retry-later';
    }
    if (row) {
      // An expired claim of a worker that died: take it over (a concurrent taker fails with 40001).
      await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
    } else {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds') ON CONFLICT DO NOTHING`,
        [key],
      );
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    if ((err as { code?: string }).code === '40001') return 'retry-later';
    throw err;
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent)]);
  return 'ack';
}
