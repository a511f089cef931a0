// expect: right
// kind: compare-and-set
// why: candidates are read with their xmin (row version) and each is marked by an UPDATE … WHERE id = $1 AND xmin = the version read, RETURNING, inside the publishing transaction; a relay that waited for the other's row lock re-checks xmin on the newest version, which the other relay's mark changed, so it updates and publishes nothing, and the row stays locked to the winner until COMMIT.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown; v: string };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      'SELECT id, topic, payload, xmin::text AS v FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    const published: Row[] = [];
    for (const row of rows) {
      const won = await tx.query<Row>(
        `UPDATE outbox SET published_at = now() WHERE id = $1 AND xmin = $2::xid RETURNING id, topic, payload`,
        [Number(row.id), row.v],
      );
      if (won.rows.length !== 1) continue;
      await env.queue.publish(won.rows[0].topic, won.rows[0].payload);
      published.push(row);
    }
    return published;
  });
}
