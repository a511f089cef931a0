// expect: wrong
// kind: result-ignored
// why: INSERT … ON CONFLICT DO UPDATE … RETURNING returns the row whether this relay inserted it or only updated another relay's live claim, so reading "a row came back" as "I own it" lets both relays publish the same outbox row.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS outbox_claims (
    outbox_id bigint PRIMARY KEY, lease_until timestamptz NOT NULL)`);
  const candidates = await env.db.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
  const published: Row[] = [];
  for (const row of candidates.rows) {
    const claim = await env.db.query(
      `INSERT INTO outbox_claims (outbox_id, lease_until) VALUES ($1, now() + interval '60 seconds')
       ON CONFLICT (outbox_id) DO UPDATE SET lease_until = EXCLUDED.lease_until
       RETURNING outbox_id`,
      [row.id],
    );
    if (claim.rows.length === 0) continue;
    await env.queue.publish(row.topic, row.payload);
    await env.db.query('UPDATE outbox SET published_at = now() WHERE id = $1', [row.id]);
    published.push(row);
  }
  return published;
}
