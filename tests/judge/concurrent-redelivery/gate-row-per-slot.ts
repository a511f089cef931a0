// expect: wrong
// kind: check-then-act
// why: the "gate" row locked FOR UPDATE before the check is keyed on the worker's slot number (1 or 2, parsed from its name), so on PostgreSQL each worker locks a row of its own; both read "no claim" in overlapping transactions, both upsert the running row, commit and send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

/** This consumer's slot in the deployment (worker-1 -> 1). */
const slotOf = (env: Env) => Number(env.process.replace(/\D+/g, '')) || 0;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const slot = slotOf(env);
  await env.db.query('CREATE TABLE IF NOT EXISTS consumer_slots (slot int PRIMARY KEY, seen_at timestamptz)');
  await env.db.query('INSERT INTO consumer_slots (slot, seen_at) VALUES ($1, now()) ON CONFLICT (slot) DO NOTHING', [slot]);
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await client.query('BEGIN');
    // Hold the slot row for the whole decision: the claim below is made under it.
    await client.query('SELECT slot FROM consumer_slots WHERE slot = $1 FOR UPDATE', [slot]);
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') verdict = 'done';
    else if (row && !row.expired) verdict = 'busy';
    else {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      verdict = 'mine';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
