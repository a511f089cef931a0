// expect: right
// kind: first-writer-wins
// why: the claim is lib's atomic upsert (insert, or take over an expired unfinished claim, RETURNING only when won) run as a prepared statement on one client, prepared once per connection (pg_prepared_statements says whether it exists), so the decision is still one atomic statement and the send carries the key.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId }); // hex: safe as a literal
  const client = await env.db.connect();
  let won: boolean;
  let done = false;
  try {
    const known = await client.query(`SELECT 1 FROM pg_prepared_statements WHERE name = 'claim_receipt'`);
    if (known.rows.length === 0) {
      await client.query(
        `PREPARE claim_receipt(text) AS
           INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
           ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = now() + interval '60 seconds'
             WHERE operations.state <> 'done' AND operations.lease_until < now()
           RETURNING op_key`,
      );
    }
    const claimed = await client.query(`EXECUTE claim_receipt('${key}')`);
    won = claimed.rows.length > 0;
    if (!won) {
      const row = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
      done = row.rows[0]?.state === 'done';
    }
  } finally {
    client.release();
  }
  if (!won) return done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent)]);
  return 'ack';
}
