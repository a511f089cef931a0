// expect: right
// kind: own-dedupe-table
// why: its own table keeps each event's body as jsonb with a unique index on the body's eventId, and the claim is one INSERT … ON CONFLICT on that expression that takes over only an unhandled row whose lease ran out, RETURNING only when won; the e-mail carries the event's key and the row is marked handled after it.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS inbox (
    body jsonb NOT NULL, handled boolean NOT NULL DEFAULT false, lease_until timestamptz NOT NULL)`);
  await env.db.query(`CREATE UNIQUE INDEX IF NOT EXISTS inbox_event ON inbox ((body->>'eventId'))`);
  const body = { eventId: event.eventId, type: event.type, orderId: event.orderId, customer: event.customer };
  const won = await env.db.query(
    `INSERT INTO inbox (body, lease_until) VALUES ($1, now() + interval '60 seconds')
     ON CONFLICT ((body->>'eventId')) DO UPDATE SET lease_until = now() + interval '60 seconds'
       WHERE NOT inbox.handled AND inbox.lease_until < now()
     RETURNING 1`,
    [JSON.stringify(body)],
  );
  if (won.rows.length === 0) {
    const row = await env.db.query<{ handled: boolean }>(`SELECT handled FROM inbox WHERE body->>'eventId' = $1`, [event.eventId]);
    return row.rows[0]?.handled ? 'ack' : 'retry-later';
  }
  if (event.type === 'payment_intent.succeeded') {
    const key = opKey('webhook', { eventId: event.eventId });
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await env.db.query(`UPDATE inbox SET handled = true WHERE body->>'eventId' = $1`, [event.eventId]);
  return 'ack';
}
