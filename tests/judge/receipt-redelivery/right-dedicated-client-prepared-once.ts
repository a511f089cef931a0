// expect: right
// kind: compare-and-set
// why: each worker process keeps one dedicated connection for its claims and prepares the solution's atomic upsert on it once (a module flag: the connection and the flag live and die with the process, so a restarted worker has a new connection and prepares again); the claim is still one statement, and the send carries the key.
import { opKey, type DbClient, type Env, type ReceiptMessage } from 'effectively-once';

let claimConn: DbClient | null = null;

async function claimClient(env: Env): Promise<DbClient> {
  if (!claimConn) {
    const c = await env.db.connect();
    await c.query(
      `PREPARE claim_receipt(text) AS
         INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = now() + interval '60 seconds'
           WHERE operations.state <> 'done' AND operations.lease_until < now()
         RETURNING op_key`,
    );
    claimConn = c;
  }
  return claimConn;
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId }); // hex: safe as a literal
  const c = await claimClient(env);
  const claimed = await c.query(`EXECUTE claim_receipt('${key}')`);
  if (claimed.rows.length === 0) {
    const row = await c.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await c.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent)]);
  return 'ack';
}
