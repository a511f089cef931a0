// expect: wrong
// kind: wrong-key
// why: the claims table's unique key is (order_id, token) and each attempt writes a fresh token (inlined as a literal), so on PostgreSQL two overlapping transactions both find no live claim, both plain INSERTs succeed under different tokens, no 23505 is ever raised, and both workers send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS receipt_claims (order_id bigint NOT NULL, token text NOT NULL, lease_until timestamptz NOT NULL, UNIQUE (order_id, token))`,
  );
  const token = env.random.uuid(); // fencing token of this attempt
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await client.query('BEGIN');
    const op = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (op.rows[0]?.state === 'done') verdict = 'done';
    else {
      const live = await client.query('SELECT 1 FROM receipt_claims WHERE order_id = $1 AND lease_until > now()', [msg.orderId]);
      if (live.rows.length === 0) {
        try {
          await client.query(
            `INSERT INTO receipt_claims (order_id, token, lease_until) VALUES ($1, '${token}', now() + interval '60 seconds')`,
            [msg.orderId],
          );
          verdict = 'mine';
        } catch (err) {
          if ((err as { code?: string }).code !== '23505') throw err;
          verdict = 'busy'; // someone else holds the order
        }
      }
    }
    if (verdict === 'busy') await client.query('ROLLBACK');
    else await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
    [key, JSON.stringify(sent ?? null)],
  );
  return 'ack';
}
