// expect: right
// kind: compare-and-set
// why: inside one transaction, after a fast-path read for a finished key, a DO block takes the key with UPDATE … WHERE (not done, lease run out) or else INSERT … ON CONFLICT DO NOTHING, RETURNs as soon as one of them FOUND its row and otherwise RAISEs 55P03, which aborts the transaction; so on PostgreSQL only the worker whose guarded write took the row commits and sends, after COMMIT.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

// DO takes no parameters: the key travels in a transaction-local setting.
const TAKE = `DO $take$
BEGIN
  UPDATE operations SET lease_until = now() + interval '60 seconds'
   WHERE op_key = current_setting('receipt.key') AND state <> 'done' AND lease_until < now();
  IF FOUND THEN
    RETURN;
  END IF;
  INSERT INTO operations (op_key, state, lease_until)
  VALUES (current_setting('receipt.key'), 'running', now() + interval '60 seconds')
  ON CONFLICT (op_key) DO NOTHING;
  IF FOUND THEN
    RETURN;
  END IF;
  RAISE EXCEPTION 'receipt % is taken', current_setting('receipt.key') USING ERRCODE = '55P03';
END
$take$`;

async function decide(env: Env, key: string): Promise<'send' | 'ack' | 'retry-later'> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const seen = await c.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (seen.rows[0]?.state === 'done') {
      await c.query('COMMIT');
      return 'ack';
    }
    await c.query(`SELECT set_config('receipt.key', $1, true)`, [key]);
    try {
      await c.query(TAKE);
    } catch (err) {
      if ((err as { code?: string }).code !== '55P03') throw err;
      await c.query('ROLLBACK');
      return 'retry-later';
    }
    await c.query('COMMIT');
    return 'send';
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const d = await decide(env, key);
  if (d !== 'send') return d;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
