// expect: right
// kind: advisory-lock
// why: a session advisory lock per event id, on a client of its own and with no transaction open, serialises the deliveries of one event; under it the event's done record decides, the e-mail goes out with the event's key, and the record is written before the unlock, so a redelivery finds it and acks.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const client = await env.db.connect();
  try {
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
    if (!got.rows[0]?.ok) return 'retry-later';
    try {
      const done = await client.query(`SELECT 1 FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
      if (done.rows.length > 0) return 'ack';
      if (event.type === 'payment_intent.succeeded') {
        await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
      }
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
         ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
        [key, JSON.stringify({ handled: event.type })],
      );
      return 'ack';
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  } finally {
    client.release();
  }
}
