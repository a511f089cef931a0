// expect: right
// kind: row-lock
// why: the reminder's key names the order and the business date; the claim is a short transaction that inserts the key's row if missing with a lease already run out, then locks it FOR UPDATE and takes it only when its lease ran out unfinished, committing before the send; the same key goes to the provider and the row is marked done after.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

async function take(env: Env, key: string): Promise<'mine' | 'done' | 'busy'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() - interval '1 second') ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    const { rows } = await client.query<{ state: string; free: boolean }>(
      `SELECT state, lease_until <= now() AS free FROM operations WHERE op_key = $1 FOR UPDATE`,
      [key],
    );
    const row = rows[0]!;
    const answer: 'mine' | 'done' | 'busy' = row.state === 'done' ? 'done' : row.free ? 'mine' : 'busy';
    if (answer === 'mine') {
      await client.query(`UPDATE operations SET state = 'running', lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
    }
    await client.query('COMMIT');
    client.release();
    return answer;
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
}

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const got = await take(env, key);
  if (got !== 'mine') return got === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
