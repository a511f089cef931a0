// expect: right
// kind: advisory-lock
// why: the key names the order and the business date; a transaction-level advisory lock on hashtextextended(key, 0) serialises the check, which inserts the claim or takes over an expired unfinished one, commits before the send, answers 'retry-later' to a live claim and 'ack' to a done one, and the provider gets the key.
import { opKey, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
    const { rows } = await c.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (!row) {
      await c.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      verdict = 'mine';
    } else if (row.state === 'done') verdict = 'done';
    else if (row.expired) {
      await c.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      verdict = 'mine';
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
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: key },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
