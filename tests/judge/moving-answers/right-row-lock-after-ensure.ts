// expect: right
// kind: row-lock
// why: the key's row is made to exist first, then locked FOR UPDATE inside the transaction that looks up and stores; an overlapping delivery waits on that row lock and then reads the stored answer, and a crash rolls the transaction back leaving nothing claimed.
import { opKey } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now())
     ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ state: string; result: LookupResult }>(
      'SELECT state, result FROM operations WHERE op_key = $1 FOR UPDATE',
      [key],
    );
    if (!rows.length) throw new Error('operation row vanished');
    if (rows[0].state === 'done') {
      await client.query('COMMIT');
      return rows[0].result;
    }
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await client.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(answer)]);
    await client.query('COMMIT');
    return answer;
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release(broken);
  }
}
