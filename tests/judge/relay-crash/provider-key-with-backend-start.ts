// expect: wrong
// kind: wrong-key
// why: the claim is keyed on the order, but the e-mail's idempotency key adds the start time of the claiming connection (pg_stat_activity.backend_start, "to tell sessions apart in the provider's log"); a worker that dies between the send and complete comes back, or is replaced, on a new connection, so the takeover sends under a new key and the customer gets a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    const c = await claim(client, key, 60);
    if (!c.owned) return c.done ? 'ack' : 'retry-later';
    const { rows } = await client.query<{ session: string | null }>(
      `SELECT backend_start::text AS session FROM pg_stat_activity WHERE pid = pg_backend_pid()`,
    );
    const sendKey = opKey('receipt-email', { orderId: msg.orderId, session: rows[0]?.session ?? null });
    const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: sendKey });
    await complete(client, key, sent);
    return 'ack';
  } finally {
    client.release();
  }
}
