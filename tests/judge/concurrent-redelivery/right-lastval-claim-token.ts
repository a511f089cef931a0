// expect: right
// kind: own-dedupe-table
// why: each claim draws a token from a sequence in the INSERT … ON CONFLICT DO NOTHING (drawn even when the insert conflicts) and reads it back with lastval() on the same connection (PostgreSQL keeps it per session), so only the worker whose token is in the row sends; an expired unfinished claim is taken by an UPDATE … RETURNING of a new token.
import { type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS receipt_claims (
       order_id bigint PRIMARY KEY, token bigserial NOT NULL, sent boolean NOT NULL DEFAULT false,
       lease_until timestamptz NOT NULL)`,
  );
  // lastval() is per session: ask it on the connection that ran the INSERT.
  const client = await env.db.connect();
  let token: number;
  try {
    await client.query(
      `INSERT INTO receipt_claims (order_id, lease_until) VALUES ($1, now() + interval '60 seconds') ON CONFLICT (order_id) DO NOTHING`,
      [msg.orderId],
    );
    const mine = await client.query<{ token: number }>('SELECT lastval() AS token');
    token = Number(mine.rows[0].token);
  } finally {
    client.release();
  }
  const row = await env.db.query<{ token: number; sent: boolean; expired: boolean }>(
    'SELECT token, sent, lease_until < now() AS expired FROM receipt_claims WHERE order_id = $1',
    [msg.orderId],
  );
  const r = row.rows[0];
  if (r.sent) return 'ack';
  if (Number(r.token) !== token) {
    if (!r.expired) return 'retry-later';
    const took = await env.db.query<{ token: number }>(
      `UPDATE receipt_claims SET token = nextval(pg_get_serial_sequence('receipt_claims', 'token')),
         lease_until = now() + interval '60 seconds'
       WHERE order_id = $1 AND NOT sent AND lease_until < now() RETURNING token`,
      [msg.orderId],
    );
    if (took.rows.length === 0) return 'retry-later';
    token = Number(took.rows[0].token);
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query('UPDATE receipt_claims SET sent = true WHERE order_id = $1 AND token = $2', [msg.orderId, token]);
  return 'ack';
}
