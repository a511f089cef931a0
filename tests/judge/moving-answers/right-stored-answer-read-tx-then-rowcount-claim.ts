// expect: right
// kind: compare-and-set
// why: the stored answer is read first through the team's transaction helper (a read-only transaction) and served when done; otherwise the claim is one autocommit INSERT … ON CONFLICT DO UPDATE … WHERE (lease run out) whose node-postgres rowCount only one worker sees as 1, a live claim answers 'retry-later', and the first answer is stored as jsonb and served to every replay.
import { opKey, type DbClient, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

async function readTx<T>(env: Env, fn: (c: DbClient) => Promise<T>): Promise<T> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN READ ONLY');
    const out = await fn(c);
    await c.query('COMMIT');
    c.release();
    return out;
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
}

type Row = { state: string; result: LookupResult | null };

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const stored = await readTx(env, (c) =>
    c.query<Row>('SELECT state, result FROM operations WHERE op_key = $1', [key]).then((r) => r.rows[0]),
  );
  if (stored?.state === 'done') return stored.result as LookupResult;
  const claim = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE operations.state = 'running' AND operations.lease_until < now()`,
    [key],
  );
  if (claim.rowCount !== 1) {
    const again = await env.db.query<Row>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    return again.rows[0]?.state === 'done' ? (again.rows[0].result as LookupResult) : 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2::jsonb WHERE op_key = $1`, [key, JSON.stringify(answer)]);
  return answer;
}
