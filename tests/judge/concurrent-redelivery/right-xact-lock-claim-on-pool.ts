// expect: right
// kind: advisory-lock
// why: a transaction on its own client holds pg_advisory_xact_lock on the key as a mutex while the claim and the done row are written through the pool, which commit on their own: the claim is atomic anyway, the lock only makes the loser wait, and nothing that matters is in the open transaction when the e-mail goes.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mutex = await env.db.connect();
  try {
    await mutex.query('BEGIN');
    await mutex.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    const c = await claim(env.db, key, 60);
    if (!c.owned) {
      await mutex.query('COMMIT');
      return c.done ? 'ack' : 'retry-later';
    }
    const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
    await complete(env.db, key, sent);
    await mutex.query('COMMIT');
    return 'ack';
  } catch (err) {
    await mutex.query('ROLLBACK');
    throw err;
  } finally {
    mutex.release();
  }
}
