// expect: right
// kind: first-writer-wins
// why: the stored answer is read and, when there is none and no live claim, the key claimed in one SERIALIZABLE transaction, so of two deliveries that both find nothing PostgreSQL commits one and fails the other (40001 or 23505), which comes back later and is served the stored answer; the lookup runs after COMMIT.
import { opKey, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

type Decision = { mine: true } | { mine: false; answer: LookupResult | null };

async function decide(env: Env, key: string): Promise<Decision> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const seen = await client.query<{ state: string; result: LookupResult; expired: boolean }>(
        'SELECT state, result, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      const row = seen.rows[0];
      let decision: Decision;
      if (row?.state === 'done') decision = { mine: false, answer: row.result };
      else if (row && !row.expired) decision = { mine: false, answer: null };
      else {
        await client.query(
          `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
           ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
          [key],
        );
        decision = { mine: true };
      }
      await client.query('COMMIT');
      return decision;
    } catch (err) {
      await client.query('ROLLBACK');
      const code = (err as { code?: string }).code;
      if (code === '40001' || code === '23505') return { mine: false, answer: null };
      throw err;
    }
  } finally {
    client.release();
  }
}

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const d = await decide(env, key);
  if (!d.mine) return d.answer ?? 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
