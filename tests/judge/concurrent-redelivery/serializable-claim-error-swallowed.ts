// expect: wrong
// kind: result-ignored
// why: the check and the claim run in a SERIALIZABLE transaction, which is right, but its failure is caught and logged and the code falls through to the send ("better a duplicate than no receipt"); on PostgreSQL the loser of two overlapping claims gets 40001 at its upsert or COMMIT, swallows it, and sends a second receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') {
      await client.query('COMMIT');
      return 'ack';
    }
    if (row && !row.expired) {
      await client.query('COMMIT');
      return 'retry-later';
    }
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = excluded.lease_until`,
      [key],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    // A hiccup in the bookkeeping must not cost the customer the receipt.
    env.log('claim transaction failed, sending anyway:', err instanceof Error ? err.message : String(err));
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
