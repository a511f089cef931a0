// expect: right
// kind: row-lock
// why: the key is sha256 of the canonical JSON of the fields that name the event (event id, type, order), never the delivery attempt; in one transaction the row is inserted if missing and read back FOR UPDATE SKIP LOCKED, so a delivery that meets another's open claim gets no row and comes back later, a done event is acknowledged, an expired unfinished claim is taken over, and the e-mail goes out after COMMIT under the same key.
import { canonical, sha256Hex, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = 'webhook:' + sha256Hex(canonical({ eventId: event.eventId, type: event.type, orderId: event.orderId }));
  const c = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await c.query('BEGIN');
    const ins = await c.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    const { rows } = await c.query<{ state: string; expired: boolean }>(
      `SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR UPDATE SKIP LOCKED`,
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') verdict = 'done';
    else if (row && ins.rowCount === 1) verdict = 'mine';
    else if (row?.expired) {
      await c.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      verdict = 'mine';
    }
    await c.query('COMMIT');
    c.release();
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
  if (verdict === 'done') return 'ack';
  if (verdict === 'busy') return 'retry-later';
  let result: unknown = { handled: event.type };
  if (event.type === 'payment_intent.succeeded') {
    result = await env.email.send(
      { to: event.customer, orderId: event.orderId, template: 'payment-received' },
      { idempotencyKey: key },
    );
  }
  await complete(env.db, key, result);
  return 'ack';
}
