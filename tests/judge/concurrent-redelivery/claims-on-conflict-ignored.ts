// expect: wrong
// kind: check-then-act
// why: the claim is INSERT … ON CONFLICT DO NOTHING whose row count is never read, so a second worker's claim quietly does nothing and it sends anyway; on PostgreSQL both workers read "not done" and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

async function ensureClaimsTable(env: Env) {
  try {
    await env.db.query(
      `CREATE TABLE IF NOT EXISTS receipt_claims (op_key text PRIMARY KEY, lease_until timestamptz NOT NULL)`,
    );
  } catch (err) {
    // Two workers creating it at once on PostgreSQL: one may lose the race on the catalog; the table is there.
    const { rows } = await env.db.query(`SELECT to_regclass('receipt_claims') AS t`);
    if (!rows[0]?.t) throw err;
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await ensureClaimsTable(env);
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const op = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (op.rows[0]?.state === 'done') {
      await client.query('COMMIT');
      return 'ack';
    }
    // Clear a claim whose lease ran out (its worker died), then take the claim: the primary key decides.
    await client.query('DELETE FROM receipt_claims WHERE op_key = $1 AND lease_until < now()', [key]);
    try {
      await client.query(`INSERT INTO receipt_claims (op_key, lease_until) VALUES ($1, now() + interval '60 seconds') ON CONFLICT (op_key) DO NOTHING`, [key]);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') {
        await client.query('ROLLBACK');
        return 'retry-later';
      }
      throw err;
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
    [key, JSON.stringify(sent ?? null)],
  );
  return 'ack';
}
