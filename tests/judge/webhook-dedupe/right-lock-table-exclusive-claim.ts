// expect: right
// kind: own-dedupe-table
// why: a short transaction takes LOCK TABLE on its own claims table IN EXCLUSIVE MODE (which conflicts with itself) before reading the event's row, so check and claim run one delivery at a time with a fresh snapshot each; a done event is acked, a live claim answered retry-later, a missing or expired one claimed with a 60 s lease, and the e-mail goes after COMMIT with the event's key, marked done after it.
import { sha256Hex, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS event_claims (
       event_id text PRIMARY KEY,
       done boolean NOT NULL DEFAULT false,
       lease_until timestamptz NOT NULL
     )`,
  );
  const client = await env.db.connect();
  let verdict: 'done' | 'busy' | 'mine' = 'busy';
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE event_claims IN EXCLUSIVE MODE');
    const { rows } = await client.query<{ done: boolean; live: boolean }>(
      'SELECT done, lease_until > now() AS live FROM event_claims WHERE event_id = $1',
      [event.eventId],
    );
    const row = rows[0];
    if (row?.done) verdict = 'done';
    else if (row?.live) verdict = 'busy';
    else {
      await client.query(
        `INSERT INTO event_claims (event_id, lease_until) VALUES ($1, now() + interval '60 seconds')
         ON CONFLICT (event_id) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
        [event.eventId],
      );
      verdict = 'mine';
    }
    await client.query('COMMIT');
    client.release();
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
  if (verdict === 'done') return 'ack';
  if (verdict === 'busy') return 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send(
      { to: event.customer, orderId: event.orderId, template: 'payment-received' },
      { idempotencyKey: sha256Hex(`payment-received:${event.eventId}`) },
    );
  }
  await env.db.query('UPDATE event_claims SET done = true WHERE event_id = $1', [event.eventId]);
  return 'ack';
}
