// expect: right
// kind: row-lock
// why: the claim runs in a short transaction on a client of its own: the key's row is inserted if missing, then locked FOR UPDATE and taken only when this delivery inserted it or its lease ran out unfinished; the transaction commits before the send, the provider gets the same key, and the row is marked done after.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type Decision = 'mine' | 'done' | 'busy';

async function claimRow(env: Env, key: string): Promise<Decision> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const fresh = await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
      [key],
    );
    let decision: Decision = 'mine';
    if (fresh.rows.length === 0) {
      const row = await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR UPDATE',
        [key],
      );
      const seen = row.rows[0]!;
      if (seen.state === 'done') decision = 'done';
      else if (!seen.expired) decision = 'busy';
      else await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
    }
    await client.query('COMMIT');
    client.release();
    return decision;
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const decision = await claimRow(env, key);
  if (decision === 'done') return 'ack';
  if (decision === 'busy') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
