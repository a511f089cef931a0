// expect: right
// kind: first-writer-wins
// why: the plain INSERT under a SAVEPOINT is the claim (a second worker's INSERT of the key waits for the first's COMMIT and fails with 23505); after a 23505 the worker re-reads the row and only when the row is gone (deleted meanwhile) tries the same INSERT again, so it sends only when an INSERT of its own succeeded or its guarded takeover changed the row.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: 'mine' | 'ack' | 'retry-later' = 'retry-later';
  try {
    await client.query('BEGIN');
    const { rows: [before] } = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (before?.state === 'done') verdict = 'ack';
    else {
      for (let attempt = 0; attempt < 3; attempt++) {
        await client.query('SAVEPOINT claim');
        try {
          await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
          verdict = 'mine';
          break;
        } catch (err) {
          if ((err as { code?: string }).code !== '23505') throw err;
          await client.query('ROLLBACK TO SAVEPOINT claim');
        }
        const { rows: [now] } = await client.query<{ state: string; expired: boolean }>(
          'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
          [key],
        );
        if (!now) continue; // the row went away between our INSERT and this read: try again
        if (now.state === 'done') { verdict = 'ack'; break; }
        if (!now.expired) { verdict = 'retry-later'; break; }
        const taken = await client.query(
          `UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1 AND state = 'running' AND lease_until < now()`,
          [key],
        );
        verdict = taken.rowCount === 1 ? 'mine' : 'retry-later';
        break;
      }
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
