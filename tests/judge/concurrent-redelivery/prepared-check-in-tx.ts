// expect: wrong
// kind: check-then-act
// why: the "already claimed?" check is a prepared plain SELECT executed inside the transaction, and the INSERT … ON CONFLICT DO NOTHING after it is never read; preparing it changes nothing on PostgreSQL: it locks no row, so two overlapping workers both find nothing and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId }); // hex: safe as a literal
  const client = await env.db.connect();
  try {
    const known = await client.query(`SELECT 1 FROM pg_prepared_statements WHERE name = 'receipt_state'`);
    if (known.rows.length === 0) {
      await client.query(`PREPARE receipt_state(text) AS SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1`);
    }
    await client.query('BEGIN');
    const seen = await client.query<{ state: string; live: boolean }>(`EXECUTE receipt_state('${key}')`);
    const row = seen.rows[0];
    if (row && (row.state === 'done' || row.live)) {
      await client.query('COMMIT');
      return row.state === 'done' ? 'ack' : 'retry-later';
    }
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [key],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent)]);
  return 'ack';
}
