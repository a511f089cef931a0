// expect: wrong
// kind: email-in-tx
// why: a transaction on a client of its own holds pg_advisory_xact_lock on the key as a mutex while the claim and the done row go through the pool and the e-mail is sent: no duplicate gets through on PostgreSQL, but the lesson's rule is broken — the e-mail goes out while the process holds an open transaction, a pooled connection sits idle in transaction with its lock for as long as the provider takes, and a crash rolls back nothing the send did. The engine stops it at the claim: a pool query beside the process's own open transaction is refused (the simulator cannot run it outside that transaction); with the claim moved onto the client, the send inside the transaction breaks the rule directly.
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
