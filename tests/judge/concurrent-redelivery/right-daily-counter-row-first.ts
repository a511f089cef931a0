// expect: right
// kind: row-lock
// why: every handling first bumps one shared row (today's delivery count) with an upsert, which row-locks it until COMMIT, so the workers' check-and-claim transactions run one after the other; the waiting worker's next SELECT takes a fresh snapshot in READ COMMITTED and sees the first one's committed claim; the send comes after COMMIT and a 60 s lease lets a takeover follow a crash.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    // One row for everyone: also the turnstile the check below relies on.
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until, result) VALUES ('stats:receipt-deliveries', 'done', now(), '1')
       ON CONFLICT (op_key) DO UPDATE SET result = to_jsonb(coalesce(operations.result::text::int, 0) + 1)
       RETURNING result`,
    );
    const { rows } = await tx.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return 'ack';
    if (rows[0]?.live) return 'retry-later';
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
