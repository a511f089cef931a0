// expect: wrong
// kind: wrong-key
// why: the provider's key carries the day the database says it is ("one clock for every worker", read as pg_catalog.now()), so a takeover after a crash that falls past midnight UTC sends under a new key and the provider, which dedupes on the key, sends the customer a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  // Keys at the provider are kept per day on their side; ask the database, not the host, which day it is.
  const { rows } = await env.db.query<{ day: string }>(
    `SELECT to_char(pg_catalog.now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day`,
  );
  const providerKey = opKey('receipt-email', { orderId: msg.orderId, day: rows[0]!.day });
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: providerKey });
  await complete(env.db, key, sent);
  return 'ack';
}
