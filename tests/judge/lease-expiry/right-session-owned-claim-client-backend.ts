// expect: right
// kind: compare-and-set
// why: the claim belongs to the database session that made it (its pid and backend_start are stored), the handler keeps that connection checked out until complete, and a claim is taken over only when pg_stat_activity no longer lists that client backend; on PostgreSQL a live owner's session stays listed (active or idle) so nobody else sends, and a crashed worker's session disappears so its key is never stuck.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let broken: Error | undefined;
  try {
    const claimed = await client.query(
      `INSERT INTO operations (op_key, state, lease_until, result)
       SELECT $1, 'running', 'infinity', jsonb_build_object('pid', a.pid, 'since', a.backend_start)
         FROM pg_stat_activity a WHERE a.pid = pg_backend_pid()
       ON CONFLICT (op_key) DO UPDATE SET result = EXCLUDED.result
         WHERE operations.state <> 'done'
           AND NOT EXISTS (SELECT 1 FROM pg_stat_activity o
                           WHERE o.backend_type = 'client backend'
                             AND o.pid = (operations.result->>'pid')::int
                             AND o.backend_start = (operations.result->>'since')::timestamptz)
       RETURNING op_key`,
      [key],
    );
    if (claimed.rows.length === 0) {
      const row = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
      return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
    }
    const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
    await client.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent ?? null)]);
    return 'ack';
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.release(broken);
  }
}
