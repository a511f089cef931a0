// expect: right
// kind: row-lock
// why: the check's row is created once, then one short transaction locks it FOR UPDATE NOWAIT, serves a stored answer, or else looks up, stores the answer and commits while holding the lock; a second delivery meanwhile gets 55P03 and comes back later, a crash rolls back and frees the row, so only one answer is ever stored and every delivery hands on that one.
import { opKey } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now()) ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    let row: { state: string; result: LookupResult | null } | undefined;
    try {
      const r = await client.query<{ state: string; result: LookupResult | null }>(
        'SELECT state, result FROM operations WHERE op_key = $1 FOR UPDATE NOWAIT',
        [key],
      );
      row = r.rows[0];
    } catch (err) {
      if ((err as { code?: string }).code !== '55P03') throw err;
      await client.query('ROLLBACK');
      client.release();
      return 'retry-later';
    }
    if (row?.state === 'done' && row.result) {
      await client.query('COMMIT');
      client.release();
      return row.result;
    }
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await client.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(answer)]);
    await client.query('COMMIT');
    client.release();
    return answer;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
}
