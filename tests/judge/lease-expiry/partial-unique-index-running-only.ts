// expect: wrong
// kind: check-then-act
// why: per-attempt claim rows with a partial unique index that covers only 'running' rows: a key marked done no longer blocks a new claim, so a delivery after worker-1 finished (a crash before its ack, or a duplicate 65 s in) inserts a fresh running row and sends the receipt a second time.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

async function ensureTable(env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_claims (
    op_key      text NOT NULL,
    attempt     bigserial NOT NULL,
    state       text NOT NULL CHECK (state IN ('running', 'done', 'abandoned')),
    lease_until timestamptz NOT NULL,
    PRIMARY KEY (op_key, attempt))`);
  await env.db.query(`CREATE UNIQUE INDEX IF NOT EXISTS receipt_claims_one_running
    ON receipt_claims (op_key) WHERE state = 'running'`);
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
     ON CONFLICT (op_key) WHERE state = 'running' DO NOTHING
     RETURNING attempt`,
    [key],
  );
  if (mine.rows.length === 0) {
    const { rows } = await env.db.query<{ state: string }>(
      `SELECT state FROM receipt_claims WHERE op_key = $1 AND state = 'running'`,
      [key],
    );
    return rows.length ? 'retry-later' : 'ack';
  }
  const attempt = mine.rows[0]!.attempt;
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    `UPDATE receipt_claims SET state = 'done' WHERE op_key = $1 AND attempt = $2 AND state = 'running'`,
    [key, attempt],
  );
  return 'ack';
}
