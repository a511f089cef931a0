// expect: wrong
// kind: result-ignored
// why: the stored answer is read with a plain SELECT and a 23505 from the claim INSERT is caught under a SAVEPOINT and followed by an UPDATE … RETURNING that "re-arms" the lease on whatever row is there, so on PostgreSQL a second overlapping delivery passes the SELECT, waits on the INSERT for the first COMMIT, fails, re-arms, looks up again after the data moved and hands the CRM a different answer.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const client = await env.db.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ state: string; result: LookupResult }>(
      'SELECT state, result FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows.length && rows[0].state === 'done') {
      await client.query('COMMIT');
      return rows[0].result;                     // a replay gets the first answer
    }
    // Record that we are checking; a duplicate row just means it was recorded already.
    await client.query('SAVEPOINT record_claim');
    try {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`,
        [key],
      );
      await client.query('RELEASE SAVEPOINT record_claim');
    } catch {
      await client.query('ROLLBACK TO SAVEPOINT record_claim');
      // Already recorded: re-arm the lease on it so nobody else starts meanwhile.
      const rearmed = await client.query(
        `UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1 RETURNING op_key`,
        [key],
      );
      if (!rearmed.rows.length) throw new Error('claim vanished');
    }
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await client.query(
      `UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`,
      [key, JSON.stringify(answer)],
    );
    await client.query('COMMIT');                // a crash before here rolls it all back
    return answer;
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release(broken);
  }
}
