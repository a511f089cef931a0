// expect: right
// kind: first-writer-wins
// why: the plain INSERT under a SAVEPOINT is the claim (on PostgreSQL a second worker's INSERT waits for the first's COMMIT and fails with 23505); after a 23505 the worker deletes the row only if it is not done and its lease has run out, then tries the same INSERT once more, which succeeds only if that row is gone, so exactly one worker holds a live claim when it looks up.
import { opKey, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const client = await env.db.connect();
  let verdict: { kind: 'mine' } | { kind: 'stored'; answer: LookupResult } | { kind: 'later' } = { kind: 'later' };
  const tryInsert = async () => {
    await client.query('SAVEPOINT claim');
    try {
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      await client.query('RELEASE SAVEPOINT claim');
      return true;
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await client.query('ROLLBACK TO SAVEPOINT claim');
      return false;
    }
  };
  try {
    await client.query('BEGIN');
    const { rows: [row] } = await client.query<{ state: string; result: unknown }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    if (row?.state === 'done') verdict = { kind: 'stored', answer: row.result as LookupResult };
    else if (await tryInsert()) verdict = { kind: 'mine' };
    else {
      // Someone holds it: clear the claim only if its lease has run out, then try once more.
      const cleared = await client.query(`DELETE FROM operations WHERE op_key = $1 AND state <> 'done' AND lease_until < now()`, [key]);
      env.log(`cleared ${cleared.rowCount} expired claim(s)`);
      if (await tryInsert()) verdict = { kind: 'mine' };
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  if (verdict.kind === 'stored') return verdict.answer;
  if (verdict.kind === 'later') {
    const { rows: [now] } = await env.db.query<{ state: string; result: unknown }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    return now?.state === 'done' ? (now.result as LookupResult) : 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
