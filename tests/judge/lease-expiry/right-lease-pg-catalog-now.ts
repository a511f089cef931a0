// expect: right
// kind: compare-and-set
// why: the solution's claim written out by hand with every clock call schema-qualified as pg_catalog.now() (a habit against search_path tricks): the lease is written and compared on the database server's clock, so a crashed worker's claim runs out after 60 s and the next delivery takes it over, while a live one is never stolen.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', pg_catalog.now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < pg_catalog.now()
     RETURNING op_key`,
    [key],
  );
  if (rows.length === 0) {
    const existing = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return existing.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
