// expect: right
// kind: compare-and-set
// why: the claim is one upsert on a table of our own that inserts or takes over only an unsent row whose lease ran out, stamping a fresh holder token (gen_random_uuid()) that it RETURNs; a second short transaction re-checks that token is still the holder with a live lease and pushes the lease forward before the send, so on PostgreSQL one worker holds the order at a time and the extra check only narrows things further.
import type { Env, ReceiptMessage } from 'effectively-once';

async function ensureTable(env: Env) {
  try {
    await env.db.query(
      `CREATE TABLE IF NOT EXISTS receipt_leases (
         order_id bigint PRIMARY KEY,
         holder uuid NOT NULL,
         sent boolean NOT NULL DEFAULT false,
         lease_until timestamptz NOT NULL)`,
    );
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P07') throw err;
  }
}

async function inTx<T>(env: Env, work: (q: (sql: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>) => Promise<T>): Promise<T> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const out = await work((sql, params) => c.query(sql, params));
    await c.query('COMMIT');
    return out;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await ensureTable(env);
  const holder = await inTx(env, async (q) => {
    const { rows } = await q(
      `INSERT INTO receipt_leases AS r (order_id, holder, lease_until) VALUES ($1, gen_random_uuid(), now() + interval '60 seconds')
       ON CONFLICT (order_id) DO UPDATE SET holder = gen_random_uuid(), lease_until = EXCLUDED.lease_until
         WHERE NOT r.sent AND r.lease_until < now()
       RETURNING r.holder`,
      [msg.orderId],
    );
    return rows[0]?.holder as string | undefined;
  });
  if (!holder) {
    const { rows } = await env.db.query<{ sent: boolean }>('SELECT sent FROM receipt_leases WHERE order_id = $1', [msg.orderId]);
    return rows[0]?.sent ? 'ack' : 'retry-later';
  }
  // Fencing: before the irreversible step, make sure this token still holds a live lease.
  const stillMine = await inTx(env, async (q) => {
    const { rows } = await q('SELECT order_id FROM receipt_leases WHERE holder = $1 AND NOT sent AND lease_until > now()', [holder]);
    if (rows.length !== 1) return false;
    await q(`UPDATE receipt_leases SET lease_until = now() + interval '60 seconds' WHERE holder = $1`, [holder]);
    return true;
  });
  if (!stillMine) return 'retry-later';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query('UPDATE receipt_leases SET sent = true WHERE holder = $1', [holder]);
  return 'ack';
}
