// expect: right
// kind: compare-and-set
// why: no transaction at all: each row is claimed in a table of its own by INSERT … ON CONFLICT DO UPDATE … WHERE the claim's lease has run out and the row is not yet published, RETURNING only when this relay won; it publishes and then marks the row, so two relays never hold one row at once, and a relay that crashed before its publish leaves a claim that expires after five minutes, when a relay that keeps polling publishes the row.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS outbox_claims (
    outbox_id bigint PRIMARY KEY, lease_until timestamptz NOT NULL)`);
  const candidates = await env.db.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
  const published: Row[] = [];
  for (const row of candidates.rows) {
    const won = await env.db.query(
      `INSERT INTO outbox_claims (outbox_id, lease_until) VALUES ($1, now() + interval '5 minutes')
       ON CONFLICT (outbox_id) DO UPDATE SET lease_until = EXCLUDED.lease_until
         WHERE outbox_claims.lease_until < now()
           AND EXISTS (SELECT 1 FROM outbox WHERE outbox.id = outbox_claims.outbox_id AND outbox.published_at IS NULL)
       RETURNING outbox_id`,
      [row.id],
    );
    if (won.rows.length === 0) continue;
    // The claim is won against a snapshot that may predate the other relay's mark: read the row again.
    const still = await env.db.query('SELECT 1 FROM outbox WHERE id = $1 AND published_at IS NULL', [row.id]);
    if (still.rows.length === 0) continue;
    await env.queue.publish(row.topic, row.payload);
    await env.db.query('UPDATE outbox SET published_at = now() WHERE id = $1', [row.id]);
    published.push(row);
  }
  return published;
}
