// expect: wrong
// kind: lock-leak
// why: the session advisory lock is taken on one pooled client and let go through another: on pg.Pool that is usually another connection, where pg_advisory_unlock answers false, so the lock stays on an idle pooled connection for good; later deliveries of the order on the other worker never get it, answer retry-later until the queue dead-letters them, and any handler in this process that draws that connection passes the lock unchecked.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function withClient<T>(env: Env, fn: (c: { query: Env['db']['query'] }) => Promise<T>): Promise<T> {
  const c = await env.db.connect();
  try {
    return await fn(c);
  } finally {
    c.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const got = await withClient(env, (c) =>
    c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]),
  );
  if (!got.rows[0]?.ok) return 'retry-later';
  try {
    const cl = await claim(env.db, key, 60);
    if (!cl.owned) return cl.done ? 'ack' : 'retry-later';
    const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
    await complete(env.db, key, sent);
    return 'ack';
  } finally {
    await withClient(env, (c) => c.query('SELECT pg_advisory_unlock(hashtext($1))', [key]));
  }
}
