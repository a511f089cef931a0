// expect: right
// kind: compare-and-set
// why: the claim is two guarded statements, each owning the key only when it returns the row: an UPDATE that takes over a running claim whose lease ran out, else an INSERT … ON CONFLICT DO NOTHING; PostgreSQL re-checks the UPDATE's WHERE after a concurrent takeover commits and lets one INSERT of a key through, so one worker sends.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function own(env: Env, key: string): Promise<boolean> {
  const taken = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '60 seconds'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (taken.rows.length === 1) return true;
  const inserted = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO NOTHING
     RETURNING op_key`,
    [key],
  );
  return inserted.rows.length === 1;
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  if (!(await own(env, key))) {
    const { rows } = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
