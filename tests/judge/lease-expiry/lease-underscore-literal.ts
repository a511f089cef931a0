// expect: wrong
// kind: sql-newer-than-15
// why: the claim writes its 60 s lease as 60_000 milliseconds, a numeric literal with an underscore, which PostgreSQL accepts only from 16 on; PostgreSQL 15, the course's standard, rejects the claim with "trailing junk after numeric literal", so no delivery ever claims or sends the receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const LEASE_MS = 60_000;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', now() + 60_000 * interval '1 millisecond')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (rows.length === 0) {
    const existing = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return existing.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  env.log(`claimed ${key} for ${LEASE_MS} ms`);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
