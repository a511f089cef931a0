// expect: wrong
// kind: check-then-act
// why: the lease is read with a plain SELECT; the claim is a plain INSERT under a SAVEPOINT whose unique violation is taken to mean "the expired row we just saw" and answered by refreshing that row by key alone; on PostgreSQL a second worker whose INSERT waited for the first one's COMMIT gets that 23505 too, overwrites the fresh claim and sends a second receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: 'ack' | 'retry-later' | 'mine';
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') verdict = 'ack';
    else if (rows[0] && !rows[0].expired) verdict = 'retry-later';
    else {
      await client.query('SAVEPOINT claim');
      try {
        await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
        await client.query('RELEASE SAVEPOINT claim');
      } catch (err) {
        if ((err as { code?: string }).code !== '23505') throw err;
        // The row is there: it is the expired claim we read above. Refresh it.
        await client.query('ROLLBACK TO SAVEPOINT claim');
        await client.query(`UPDATE operations SET state = 'running', lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      }
      verdict = 'mine';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
