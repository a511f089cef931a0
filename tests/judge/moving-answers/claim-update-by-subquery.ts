// expect: wrong
// kind: check-then-act
// why: the claim is the queue-pop idiom UPDATE … WHERE op_key = (SELECT op_key … WHERE state = 'running' AND lease_until < now()) without FOR UPDATE in the subquery; on PostgreSQL a second delivery whose UPDATE waits on the first's row lock re-checks only "op_key = <the subquery's value>" after the first commits (EvalPlanQual does not re-run the subquery), so it takes the finished check over, looks up again after the data moved and hands the CRM a second answer.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  // The check's row exists from the first delivery on, claimable (lease already over).
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const took = await client.query(
      `UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = (SELECT op_key FROM operations WHERE op_key = $1 AND state = 'running' AND lease_until < now())
       RETURNING op_key`,
      [key],
    );
    if (took.rows.length === 0) {
      const { rows } = await client.query<{ state: string; result: LookupResult }>(
        'SELECT state, result FROM operations WHERE op_key = $1',
        [key],
      );
      await client.query('COMMIT');
      return rows[0]?.state === 'done' ? rows[0].result : 'retry-later';
    }
    // Ours: look up while holding the row, store the answer, commit (a crash rolls the claim back).
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await client.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(answer)]);
    await client.query('COMMIT');
    return answer;
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release(broken);
  }
}
