// expect: wrong
// kind: check-then-act
// why: the transaction first refreshes the worker's own heartbeat row in operations, which locks only that row, then checks the order's key with a plain SELECT and claims it with an INSERT … ON CONFLICT DO NOTHING whose answer it ignores: on PostgreSQL two overlapping workers both find no claim and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // Liveness: this worker is alive and handling something.
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [`heartbeat:${env.process}`],
    );
    const seen = await client.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    const row = seen.rows[0];
    if (row && (row.state === 'done' || row.live)) {
      await client.query('COMMIT');
      return row.state === 'done' ? 'ack' : 'retry-later';
    }
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [key],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent)]);
  return 'ack';
}
