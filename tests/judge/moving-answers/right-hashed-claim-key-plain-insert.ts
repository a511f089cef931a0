// expect: right
// kind: own-dedupe-table
// why: the claim is a plain INSERT into a table of our own whose primary key is the operation's hashed key (opKey of order and e-mail): after a fast-path read by order and e-mail, a second worker's INSERT of the same key waits for the first and fails with 23505 (rolled back, retry later), and an expired unfinished claim is deleted first, so one worker at a time looks up and the stored first answer is served afterwards.
import { opKey } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

async function ensureTable(env: Env) {
  try {
    await env.db.query(
      `CREATE TABLE IF NOT EXISTS lookup_claims (
         claim_key text PRIMARY KEY,
         order_id bigint NOT NULL,
         email text NOT NULL,
         done boolean NOT NULL DEFAULT false,
         answer jsonb,
         lease_until timestamptz NOT NULL)`,
    );
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P07') throw err;
  }
}

type Decision = { go: 'lookup' } | { go: 'answer'; answer: LookupResult } | { go: 'later' };

async function decide(env: Env, key: string, msg: ReceiptMessage): Promise<Decision> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const seen = await c.query<{ answer: unknown }>('SELECT answer FROM lookup_claims WHERE order_id = $1 AND email = $2 AND done', [msg.orderId, msg.customer]);
    if (seen.rows.length) {
      await c.query('COMMIT');
      return { go: 'answer', answer: seen.rows[0]!.answer as LookupResult };
    }
    await c.query('DELETE FROM lookup_claims WHERE claim_key = $1 AND NOT done AND lease_until < now()', [key]);
    try {
      await c.query(
        `INSERT INTO lookup_claims (claim_key, order_id, email, lease_until) VALUES ($1, $2, $3, now() + interval '60 seconds')`,
        [key, msg.orderId, msg.customer],
      );
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await c.query('ROLLBACK');
      return { go: 'later' };
    }
    await c.query('COMMIT');
    return { go: 'lookup' };
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  await ensureTable(env);
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const d = await decide(env, key, msg);
  if (d.go === 'answer') return d.answer;
  if (d.go === 'later') return 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query('UPDATE lookup_claims SET done = true, answer = $2 WHERE claim_key = $1', [key, JSON.stringify(answer)]);
  return answer;
}
