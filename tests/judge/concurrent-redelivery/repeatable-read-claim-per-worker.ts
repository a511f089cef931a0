// expect: wrong
// kind: check-then-act
// why: REPEATABLE READ fails a second writer of the same row only, and each worker writes a claim row of its own (key/worker) after reading the key's rows, so two overlapping workers both find no live claim, both commit and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = `${key}/${env.process}`;
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy';
  try {
    // A consistent snapshot for the check and the claim.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const seen = await client.query<{ done: boolean | null; live: boolean | null }>(
      `SELECT bool_or(state = 'done') AS done, bool_or(state = 'running' AND lease_until > now()) AS live
       FROM operations WHERE op_key LIKE $1`,
      [`${key}/%`],
    );
    const row = seen.rows[0];
    if (row?.done) verdict = 'done';
    else if (row?.live) verdict = 'busy';
    else {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [mine],
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
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [mine, JSON.stringify(sent)]);
  return 'ack';
}
