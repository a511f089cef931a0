// expect: wrong
// kind: memory-cache
// why: a custom setting written with set_config(…, false) lives in one connection's session on PostgreSQL, so the other worker never sees it (and a crash loses it): both workers holding the message find it unset and both send.
import { type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const name = `receipts.sent_${msg.orderId}`;
  // "Mark" the order in the database session instead of a JS variable.
  const marked = await env.db.query<{ prev: string | null }>(
    `SELECT current_setting($1, true) AS prev, set_config($1, 'sending', false) AS now_set`,
    [name],
  );
  const prev = marked.rows[0]?.prev;
  if (prev === 'sending' || prev === 'sent') return prev === 'sent' ? 'ack' : 'retry-later';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`SELECT set_config($1, 'sent', false)`, [name]);
  return 'ack';
}
