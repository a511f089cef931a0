// expect: right
// kind: compare-and-set
// why: inside one transaction a DO block runs the claim (INSERT … ON CONFLICT DO UPDATE … WHERE not done and lease run out) and raises 55P03 when it got no row (IF NOT FOUND), which aborts the transaction, so only the worker whose claim took the row commits and sends; the earlier read is only a fast path for a finished key.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

// DO takes no parameters: the key travels in a transaction-local setting.
const CLAIM_OR_RAISE = `DO $claim$
BEGIN
  INSERT INTO operations AS o (op_key, state, lease_until)
  VALUES (current_setting('receipt.key'), 'running', now() + interval '60 seconds')
  ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
    WHERE o.state <> 'done' AND o.lease_until < now();
  IF NOT FOUND THEN
    RAISE EXCEPTION 'receipt % is taken', current_setting('receipt.key') USING ERRCODE = '55P03';
  END IF;
END
$claim$`;

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
      await c.query(CLAIM_OR_RAISE);
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
