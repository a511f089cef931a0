// expect: wrong
// kind: check-then-act
// why: TABLE operations is a plain SELECT * that locks nothing, so on PostgreSQL both workers' transactions read no row for the key, both upsert it (the unguarded DO UPDATE overwrites) and both send after COMMIT.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ op_key: string; state: string; lease_until: Date }>('TABLE operations');
    const row = rows.find((r) => r.op_key === key);
    if (row && (row.state === 'done' || new Date(row.lease_until).getTime() > env.clock.now())) {
      await client.query('COMMIT');
      return row.state === 'done' ? 'ack' : 'retry-later';
    }
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
      [key],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
