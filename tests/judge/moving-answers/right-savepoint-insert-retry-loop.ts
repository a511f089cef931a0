// expect: right
// kind: first-writer-wins
// why: the classic insert-or-retry loop in one transaction: a plain INSERT under a SAVEPOINT is the claim, and on 23505 the loop rolls back to the savepoint and reads again; on PostgreSQL the second worker's INSERT waits for the first's COMMIT, which already holds the stored answer, so its fresh READ COMMITTED re-read returns that answer and it never looks up (a rolled-back first worker leaves no row, and the retry's INSERT then succeeds).
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const client = await env.db.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    for (let attempt = 0; attempt < 3; attempt++) {
      const { rows } = await client.query<{ state: string; result: LookupResult }>(
        'SELECT state, result FROM operations WHERE op_key = $1',
        [key],
      );
      if (rows.length) {
        await client.query('COMMIT');
        return rows[0].state === 'done' ? rows[0].result : 'retry-later';
      }
      await client.query('SAVEPOINT claim');
      try {
        await client.query(
          `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`,
          [key],
        );
        await client.query('RELEASE SAVEPOINT claim');
      } catch (err) {
        if ((err as { code?: string }).code !== '23505') throw err;
        await client.query('ROLLBACK TO SAVEPOINT claim');
        continue;                                  // someone committed it meanwhile: read it again
      }
      const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
      await client.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(answer)]);
      await client.query('COMMIT');
      return answer;
    }
    throw new Error(`could not settle ${key}`);
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release(broken);
  }
}
