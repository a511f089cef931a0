// expect: wrong
// kind: result-ignored
// why: the claim row is read FOR UPDATE SKIP LOCKED, and an empty answer (another handler is mid-claim or holds the row) is taken to mean "handled elsewhere" and acknowledged; when handler-1 then crashes after its claim (crash after db) the event was already acknowledged by handler-2 on the duplicate delivery, so the provider never sends it again and the "payment received" e-mail is never sent.
import { opKey, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await env.db.connect();
  let verdict: 'mine' | 'done' | 'elsewhere' = 'elsewhere';
  try {
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    const { rows } = await c.query<{ state: string; expired: boolean; fresh: boolean }>(
      `SELECT state, lease_until < now() AS expired, xmin::text = pg_current_xact_id()::xid::text AS fresh
         FROM operations WHERE op_key = $1 FOR UPDATE SKIP LOCKED`,
      [key],
    );
    const row = rows[0];
    if (!row) verdict = 'elsewhere';
    else if (row.state === 'done') verdict = 'done';
    else if (row.fresh || row.expired) {
      await c.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      verdict = 'mine';
    } else verdict = 'elsewhere';
    await c.query('COMMIT');
    c.release();
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
  if (verdict !== 'mine') return 'ack';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
