// expect: right
// kind: row-lock
// why: in one transaction the claim row is inserted if missing (DO NOTHING, rowCount says whether this worker made it), otherwise read back FOR NO KEY UPDATE, which serialises the takeover of an expired unfinished row on the database's clock; the transaction commits before the send and a done key is acknowledged.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy';
  try {
    await c.query('BEGIN');
    const ins = await c.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    if (ins.rowCount === 1) verdict = 'mine';
    else {
      const { rows } = await c.query<{ state: string; expired: boolean }>(
        `SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR NO KEY UPDATE`,
        [key],
      );
      const row = rows[0];
      if (row?.state === 'done') verdict = 'done';
      else if (row?.expired) {
        await c.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
        verdict = 'mine';
      } else verdict = 'busy';
    }
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    c.release();
    throw err;
  }
  c.release();
  if (verdict === 'done') return 'ack';
  if (verdict === 'busy') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
