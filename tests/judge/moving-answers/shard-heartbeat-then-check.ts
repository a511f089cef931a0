// expect: wrong
// kind: check-then-act
// why: the transaction first touches the worker's heartbeat row, keyed by its shard number, which locks only that worker's own row; the decision is then a plain SELECT of the check and an upsert whose answer is never read, so on PostgreSQL two overlapping deliveries on the two workers both find no claim, both look up across the minute the data moves, and the CRM hears two answers.
import { opKey, complete, withTransaction, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const shard = Number(env.process.replace(/\D/g, '')) || 0;
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS worker_heartbeats (shard integer PRIMARY KEY, beat_at timestamptz NOT NULL)`,
  );
  const decision = await withTransaction(env.db, async (tx) => {
    // Heartbeat: lets the lease sweeper know this shard is alive.
    await tx.query(
      `INSERT INTO worker_heartbeats (shard, beat_at) VALUES ($1, now())
       ON CONFLICT (shard) DO UPDATE SET beat_at = EXCLUDED.beat_at`,
      [shard],
    );
    const { rows } = await tx.query<{ state: string; result: LookupResult; live: boolean }>(
      'SELECT state, result, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return { stored: rows[0].result };
    if (rows[0]?.live) return 'retry-later' as const;
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine' as const;
  });
  if (decision === 'retry-later') return 'retry-later';
  if (decision !== 'mine') return decision.stored;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
