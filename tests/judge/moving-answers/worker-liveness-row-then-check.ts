// expect: wrong
// kind: check-then-act
// why: the transaction first renews the worker's own liveness row (an upsert … WHERE … RETURNING), which locks only that worker's row; whether the check is taken is then decided by a plain SELECT and an ON CONFLICT DO NOTHING whose answer is never read, so on PostgreSQL two overlapping deliveries both find no claim, both look up, and with the data moving in between the CRM hears two answers.
import { opKey, complete, withTransaction, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const verdict = await withTransaction(env.db, async (tx) => {
    const alive = await tx.query<{ lease_until: unknown }>(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until WHERE operations.state = 'running'
       RETURNING lease_until`,
      [`worker-alive:${env.process}`],
    );
    env.log(`${env.process} alive until ${String(alive.rows[0]?.lease_until)}`);
    const { rows } = await tx.query<{ state: string; result: LookupResult; live: boolean }>(
      'SELECT state, result, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return { stored: rows[0].result };
    if (rows[0]?.live) return 'retry-later' as const;
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    return 'mine' as const;
  });
  if (verdict === 'retry-later') return 'retry-later';
  if (verdict !== 'mine') return verdict.stored;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
