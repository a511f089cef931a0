// expect: right
// kind: own-dedupe-table
// why: the claims table has a surrogate id and an EXCLUDE USING btree (order_id WITH =) constraint, which like a unique key makes a second worker's INSERT of the same order wait for the first to commit and then fail (23P01); the worker catches that and steps aside, and an expired claim is taken over by a DELETE whose row count is read, so only one worker ever sends.
import { type Env, type ReceiptMessage } from 'effectively-once';

const SCHEMA = `CREATE TABLE IF NOT EXISTS receipt_claims (
  id bigserial PRIMARY KEY,
  order_id int NOT NULL,
  lease_until timestamptz NOT NULL,
  sent boolean NOT NULL DEFAULT false,
  EXCLUDE USING btree (order_id WITH =)
)`;

type Verdict = 'mine' | 'done' | 'busy';

async function claimOrder(env: Env, orderId: number): Promise<Verdict> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ sent: boolean; expired: boolean }>(
        'SELECT sent, lease_until < now() AS expired FROM receipt_claims WHERE order_id = $1',
        [orderId],
      );
      const row = rows[0];
      if (row?.sent) {
        await client.query('COMMIT');
        return 'done';
      }
      if (row && !row.expired) {
        await client.query('COMMIT');
        return 'busy';
      }
      if (row) {
        // A dead worker's claim: only the worker whose DELETE removed it may claim again.
        const gone = await client.query('DELETE FROM receipt_claims WHERE order_id = $1 AND NOT sent AND lease_until < now()', [orderId]);
        if (gone.rowCount !== 1) {
          await client.query('ROLLBACK');
          return 'busy';
        }
      }
      await client.query(`INSERT INTO receipt_claims (order_id, lease_until) VALUES ($1, now() + interval '60 seconds')`, [orderId]);
      await client.query('COMMIT');
      return 'mine';
    } catch (err) {
      await client.query('ROLLBACK');
      const code = (err as { code?: string }).code;
      if (code === '23P01' || code === '23505') return 'busy';
      throw err;
    }
  } finally {
    client.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(SCHEMA);
  const verdict = await claimOrder(env, msg.orderId);
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query('UPDATE receipt_claims SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
