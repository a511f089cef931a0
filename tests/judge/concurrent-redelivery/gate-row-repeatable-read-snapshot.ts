// expect: wrong
// kind: check-then-act
// why: the transaction is REPEATABLE READ and its first statement is the gate's FOR UPDATE, so its snapshot is taken before it waits for the gate; once the first worker commits and lets the gate go, the second worker's check still reads that old snapshot, finds no send logged, logs its own (a row under a fresh serial id, no conflict) and sends too.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query('CREATE TABLE IF NOT EXISTS receipt_gates (order_id bigint PRIMARY KEY)');
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS receipt_sends (id bigserial PRIMARY KEY, order_id bigint NOT NULL, sent_by text NOT NULL, at timestamptz NOT NULL DEFAULT now())`,
  );
  await env.db.query('INSERT INTO receipt_gates (order_id) VALUES ($1) ON CONFLICT (order_id) DO NOTHING', [msg.orderId]);
  const client = await env.db.connect();
  let mine = false;
  try {
    // One consistent view of the order for the whole decision.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await client.query('SELECT order_id FROM receipt_gates WHERE order_id = $1 FOR UPDATE', [msg.orderId]);
    const { rows } = await client.query('SELECT 1 FROM receipt_sends WHERE order_id = $1', [msg.orderId]);
    if (rows.length === 0) {
      await client.query('INSERT INTO receipt_sends (order_id, sent_by) VALUES ($1, $2)', [msg.orderId, env.process]);
      mine = true;
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (!mine) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
    [key, JSON.stringify(sent ?? null)],
  );
  return 'ack';
}
