// expect: right
// kind: own-dedupe-table
// why: the "done?" read in operations is only a fast path; the claim is a plain INSERT into send_claims whose primary key (order_id, kind) makes a second worker's INSERT wait for the first and fail with 23505, so one transaction alone commits a live claim before any send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

const CLAIMS_DDL = `CREATE TABLE IF NOT EXISTS send_claims (
  order_id    bigint      NOT NULL,
  kind        text        NOT NULL,
  lease_until timestamptz NOT NULL,
  PRIMARY KEY (order_id, kind)
)`;

async function ensureClaims(env: Env) {
  try {
    await env.db.query(CLAIMS_DDL);
  } catch (err) {
    const { rows } = await env.db.query(`SELECT to_regclass('send_claims') AS t`);
    if (!rows[0]?.t) throw err;
  }
}

type Decision = 'send' | 'done' | 'busy';

async function decide(env: Env, key: string, orderId: number): Promise<Decision> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const op = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (op.rows[0]?.state === 'done') {
      await client.query('COMMIT');
      return 'done';
    }
    // A claim whose worker died is cleared; a live one stays and makes our INSERT fail.
    await client.query(`DELETE FROM send_claims WHERE order_id = $1 AND kind = 'receipt' AND lease_until < now()`, [orderId]);
    try {
      await client.query(
        `INSERT INTO send_claims (order_id, kind, lease_until) VALUES ($1, 'receipt', now() + interval '60 seconds')`,
        [orderId],
      );
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await client.query('ROLLBACK');
      return 'busy';
    }
    await client.query('COMMIT');
    return 'send';
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await ensureClaims(env);
  const d = await decide(env, key, msg.orderId);
  if (d === 'done') return 'ack';
  if (d === 'busy') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
    [key, JSON.stringify(sent ?? null)],
  );
  return 'ack';
}
