// expect: right
// kind: row-lock
// why: the claim row (born expired) is read FOR SHARE by order id and, when expired, updated by its surrogate id in the same transaction: two workers may both hold the share lock, but then each UPDATE waits for the other's share lock and PostgreSQL fails one (40P01, rolled back, retry later); a worker reading after the other's UPDATE waits for its COMMIT and sees the fresh lease; the send comes after COMMIT.
import type { Env, ReceiptMessage } from 'effectively-once';

async function ensureTable(env: Env) {
  try {
    await env.db.query(
      `CREATE TABLE IF NOT EXISTS receipt_jobs (
         id bigserial PRIMARY KEY,
         order_id bigint NOT NULL UNIQUE,
         sent boolean NOT NULL DEFAULT false,
         lease_until timestamptz NOT NULL)`,
    );
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P07') throw err;
  }
}

async function decide(env: Env, orderId: number): Promise<'send' | 'ack' | 'retry-later'> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const { rows } = await c.query<{ id: string; sent: boolean; expired: boolean }>(
      'SELECT id, sent, lease_until < now() AS expired FROM receipt_jobs WHERE order_id = $1 FOR SHARE',
      [orderId],
    );
    const job = rows[0];
    let d: 'send' | 'ack' | 'retry-later';
    if (!job) d = 'retry-later';
    else if (job.sent) d = 'ack';
    else if (!job.expired) d = 'retry-later';
    else {
      await c.query(`UPDATE receipt_jobs SET lease_until = now() + interval '60 seconds' WHERE id = $1`, [job.id]);
      d = 'send';
    }
    await c.query('COMMIT');
    return d;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    const code = (err as { code?: string }).code;
    if (code === '40P01' || code === '40001') return 'retry-later';
    throw err;
  } finally {
    c.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await ensureTable(env);
  await env.db.query(
    `INSERT INTO receipt_jobs (order_id, lease_until) VALUES ($1, now() - interval '1 second') ON CONFLICT (order_id) DO NOTHING`,
    [msg.orderId],
  );
  const d = await decide(env, msg.orderId);
  if (d !== 'send') return d;
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query('UPDATE receipt_jobs SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
