// expect: right
// kind: first-writer-wins
// why: the claim is a read-then-write in a SERIALIZABLE transaction retried on 40001/23505 until it commits; of two workers that both read "no row" PostgreSQL lets one commit and the retried one then reads the claim, so one reminder per order and business date goes out, sent after COMMIT with the same key.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };
type Decision = 'mine' | 'done' | 'busy';

async function decide(env: Env, key: string): Promise<Decision> {
  for (let attempt = 1; ; attempt++) {
    const client = await env.db.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      const { rows } = await client.query<{ state: string; live: boolean }>(
        'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
        [key],
      );
      const row = rows[0];
      let decision: Decision = 'mine';
      if (row?.state === 'done') decision = 'done';
      else if (row?.live) decision = 'busy';
      else {
        await client.query(
          `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
           ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
          [key],
        );
      }
      await client.query('COMMIT');
      client.release();
      return decision;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      const code = (err as { code?: string }).code;
      if ((code !== '40001' && code !== '23505') || attempt === 5) throw err;
      await env.sleep(50 * attempt);
    }
  }
}

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = `reminder:${msg.orderId}:${msg.businessDate}`;
  const decision = await decide(env, key);
  if (decision !== 'mine') return decision === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate }) },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
