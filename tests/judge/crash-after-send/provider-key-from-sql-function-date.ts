// expect: wrong
// kind: wrong-key
// why: the provider's key comes from a SQL helper that appends current_date, so a takeover after a crash past midnight sends under a new key and the provider, seeing new work, sends the receipt a second time.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

const INSTALL = `
CREATE OR REPLACE FUNCTION receipt_send_key(k text) RETURNS text
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  -- one key per send day, so support can search the provider's log by date
  RETURN k || ':' || to_char(current_date, 'YYYYMMDD');
END
$fn$`;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  try {
    await env.db.query(INSTALL);
  } catch {
    // a concurrent CREATE OR REPLACE: it exists either way
  }
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const { rows } = await env.db.query<{ k: string }>('SELECT receipt_send_key($1) AS k', [key]);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: rows[0]!.k });
  await complete(env.db, key, sent);
  return 'ack';
}
