// expect: wrong
// kind: check-then-act
// why: each handling records its own attempt row (key plus a fresh attempt id) after checking for any attempt of the key, so the primary key never makes two overlapping workers collide: on PostgreSQL both find no attempt, both insert a row of their own and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // One row per attempt (key:attempt), so we can see every retry in the table.
  const attempt = `${key}:${env.random.uuid()}`;
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const live = await client.query<{ state: string }>(
      `SELECT state FROM operations
        WHERE op_key LIKE $1 || ':%' AND (state = 'done' OR lease_until > now())
        ORDER BY state DESC LIMIT 1`,
      [key],
    );
    if (live.rows.length) {
      await client.query('COMMIT');
      return live.rows[0].state === 'done' ? 'ack' : 'retry-later';
    }
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`,
      [attempt],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [attempt, JSON.stringify(sent)]);
  return 'ack';
}
