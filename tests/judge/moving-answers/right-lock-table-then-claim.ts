// expect: right
// kind: row-lock
// why: a short transaction locks operations IN SHARE ROW EXCLUSIVE MODE (which conflicts with itself) before it reads, so two deliveries' check-and-claim sections run one after the other and the second, with a fresh snapshot, sees the first's claim or stored answer; the lookup happens after COMMIT, the answer is stored under the key, and a 60 s lease lets a takeover follow a crash.
import { opKey, complete, withTransaction, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const verdict = await withTransaction(env.db, async (tx) => {
    await tx.query('LOCK TABLE operations IN SHARE ROW EXCLUSIVE MODE');
    const { rows } = await tx.query<{ state: string; result: LookupResult; live: boolean }>(
      'SELECT state, result, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return { stored: rows[0].result };
    if (rows[0]?.live) return 'retry-later' as const;
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
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
