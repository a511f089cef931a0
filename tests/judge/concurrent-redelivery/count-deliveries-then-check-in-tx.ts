// expect: wrong
// kind: check-then-act
// why: the upsert that counts deliveries for the log returns a row every time and decides nothing; the decision is the plain SELECT in the transaction after it, and the claim's ON CONFLICT DO NOTHING answer is never read, so on PostgreSQL two overlapping transactions both find no row and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const seenCount = await env.db.query<{ n: number }>(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), '1'::jsonb)
     ON CONFLICT (op_key) DO UPDATE SET result = to_jsonb((operations.result #>> '{}')::int + 1)
     RETURNING (result #>> '{}')::int AS n`,
    [opKey('receipt-deliveries', { orderId: msg.orderId })],
  );
  env.log(`delivery #${seenCount.rows[0]?.n} of order ${msg.orderId}`);
  const state = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row && (row.state === 'done' || row.live)) return row.state;
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine';
  });
  if (state === 'done') return 'ack';
  if (state !== 'mine') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
