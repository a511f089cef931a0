// expect: right
// kind: own-dedupe-table
// why: each claim is a row keyed on (op_key, attempt), and a partial unique index allows only one live ('running' or 'done') row per key; an expired running row is first marked 'abandoned' by the database clock, then INSERT … ON CONFLICT (op_key) WHERE live DO NOTHING RETURNING lets exactly one worker in, and complete is fenced on its own attempt.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

async function ensureTable(env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_claims (
    op_key      text NOT NULL,
    attempt     bigserial NOT NULL,
    state       text NOT NULL CHECK (state IN ('running', 'done', 'abandoned')),
    lease_until timestamptz NOT NULL,
    PRIMARY KEY (op_key, attempt))`);
  await env.db.query(`CREATE UNIQUE INDEX IF NOT EXISTS receipt_claims_one_live
    ON receipt_claims (op_key) WHERE state IN ('running', 'done')`);
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await ensureTable(env);
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `UPDATE receipt_claims SET state = 'abandoned'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now()`,
    [key],
  );
  const mine = await env.db.query<{ attempt: number }>(
    `INSERT INTO receipt_claims (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) WHERE state IN ('running', 'done') DO NOTHING
     RETURNING attempt`,
    [key],
  );
  if (mine.rows.length === 0) {
    const { rows } = await env.db.query<{ state: string }>(
      `SELECT state FROM receipt_claims WHERE op_key = $1 AND state IN ('running', 'done')`,
      [key],
    );
    return rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const attempt = mine.rows[0]!.attempt;
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    `UPDATE receipt_claims SET state = 'done' WHERE op_key = $1 AND attempt = $2 AND state = 'running'`,
    [key, attempt],
  );
  return 'ack';
}
