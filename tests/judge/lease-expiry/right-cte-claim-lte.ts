// expect: right
// kind: cte
// why: one statement inserts the claim or takes over a running row whose lease is at or past its end (lease_until <= now(), on the database's clock), and a second CTE reads the state when neither happened; a done row is never taken, and the 60 s lease outlasts the 30 s send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query<{ took: boolean; state: string | null }>(
    `WITH took AS (
       INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = now() + interval '60 seconds'
         WHERE operations.state = 'running' AND operations.lease_until <= now()
       RETURNING op_key
     )
     SELECT EXISTS (SELECT 1 FROM took) AS took,
            (SELECT state FROM operations WHERE op_key = $1) AS state`,
    [key],
  );
  const r = rows[0]!;
  if (!r.took) return r.state === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
