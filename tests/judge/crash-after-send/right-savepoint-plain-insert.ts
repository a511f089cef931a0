// expect: right
// kind: row-lock
// why: in a transaction a plain INSERT of the claim runs under a SAVEPOINT; a duplicate key (23505) rolls back to the savepoint only, and the existing row is then read FOR UPDATE and taken over only when unfinished and past its lease; the transaction commits before the send, and the provider gets the operation key, so a takeover after a crash after send is a replay.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await c.query('BEGIN');
    await c.query('SAVEPOINT claim');
    try {
      await c.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`,
        [key],
      );
      await c.query('RELEASE SAVEPOINT claim');
      verdict = 'mine';
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await c.query('ROLLBACK TO SAVEPOINT claim');
      const { rows } = await c.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR UPDATE',
        [key],
      );
      if (rows[0]?.state === 'done') verdict = 'done';
      else if (rows[0]?.expired) {
        await c.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
        verdict = 'mine';
      }
    }
    await c.query('COMMIT');
    c.release();
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
  if (verdict === 'done') return 'ack';
  if (verdict === 'busy') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
