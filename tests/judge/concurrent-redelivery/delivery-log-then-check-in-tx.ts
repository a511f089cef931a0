// expect: wrong
// kind: check-then-act
// why: each delivery first appends a log row of its own (a plain INSERT with a fresh id), then checks the order's key with a plain SELECT in a transaction and claims it with an INSERT … ON CONFLICT DO NOTHING whose answer it ignores: on PostgreSQL two overlapping workers both find no claim and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // Log every delivery, for the support team.
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)`,
    [`delivery:${env.random.uuid()}`, JSON.stringify({ orderId: msg.orderId, by: env.process })],
  );
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
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
