// expect: wrong
// kind: check-then-act
// why: each attempt writes a claim row of its own (key/attempt) after a plain SELECT over the key's rows finds none done or live, so the primary key never meets a second worker: on PostgreSQL two overlapping transactions both find nothing, both insert their own row and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // One row per attempt, so the table shows who tried when.
  const attempt = env.random.uuid();
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy';
  try {
    await client.query('BEGIN');
    // Attempts that died: their lease ran out, they will never finish.
    await client.query(`DELETE FROM operations WHERE op_key LIKE $1::text || '/%' AND state = 'running' AND lease_until < now()`, [key]);
    const seen = await client.query<{ done: boolean | null; live: boolean | null }>(
      `SELECT bool_or(state = 'done') AS done, bool_or(state = 'running') AS live
       FROM operations WHERE op_key LIKE $1::text || '/%'`,
      [key],
    );
    const row = seen.rows[0];
    if (row?.done) verdict = 'done';
    else if (row?.live) verdict = 'busy';
    else {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1::text || '/' || $2::text, 'running', now() + interval '60 seconds')`,
        [key, attempt],
      );
      verdict = 'mine';
    }
    await client.query('COMMIT');
    client.release();
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done', result = $3 WHERE op_key = $1::text || '/' || $2::text`, [key, attempt, JSON.stringify(sent)]);
  return 'ack';
}
