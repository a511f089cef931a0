// expect: right
// kind: advisory-lock
// why: a session try-lock on the event's key (taken and let go on one client) makes a second delivery of the event back off while the first handles it, and under the lock a done record of the event is read before anything is sent and written right after, so each event is handled once.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const client = await env.db.connect();
  try {
    const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS got', [key]);
    if (!rows[0]!.got) return 'retry-later';
    try {
      const seen = await client.query(`SELECT 1 FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
      if (seen.rows.length) return 'ack';
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
