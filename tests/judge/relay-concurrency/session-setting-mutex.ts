// expect: wrong
// kind: relay-no-lock
// why: the "relay busy" flag is a custom setting written with set_config(…, false), which on PostgreSQL lives in one connection's session: the other relay's connection never sees it, so both relays read the same unpublished rows in autocommit and both publish them.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  // A database-side flag instead of a JS variable, so both relays see it.
  const busy = await env.db.query<{ owner: string | null }>(`SELECT current_setting('relay.owner', true) AS owner`);
  const owner = busy.rows[0]?.owner ?? '';
  if (owner !== '' && owner !== env.process) return [];
  await env.db.query(`SELECT set_config('relay.owner', $1, false)`, [env.process]);
  try {
    const { rows } = await env.db.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      await env.db.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    }
    return rows;
  } finally {
    await env.db.query(`SELECT set_config('relay.owner', '', false)`);
  }
}
