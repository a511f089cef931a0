// expect: wrong
// kind: check-then-act
// why: one statement claims and also reads the row "as it was before", and the code decides from that before-image (no row, or an expired unfinished one, means the claim was ours); but every part of a statement reads the snapshot taken when it started, so on PostgreSQL a second worker whose upsert waited for the first worker's insert and then changed nothing still sees "no row before" and sends too.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // One round trip: claim, and tell us what the row looked like before we touched it.
  const { rows } = await env.db.query<{ state_before: string | null; expired_before: boolean | null }>(
    `WITH before AS (
       SELECT state, lease_until FROM operations WHERE op_key = $1
     ), claim AS (
       INSERT INTO operations (op_key, state, lease_until)
       VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE
         SET state = 'running', lease_until = now() + interval '60 seconds'
         WHERE operations.state <> 'done' AND operations.lease_until < now()
       RETURNING op_key
     )
     SELECT (SELECT state FROM before) AS state_before,
            (SELECT lease_until < now() FROM before) AS expired_before,
            (SELECT count(*) FROM claim) AS touched`,
    [key],
  );
  const before = rows[0];
  // The claim's WHERE is exactly this test, so the before-image tells us whether it was ours.
  const mine = before.state_before === null || (before.state_before !== 'done' && before.expired_before === true);
  if (!mine) return before.state_before === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
