// expect: right
// kind: row-lock
// why: each event gets a row in its own table up front (INSERT … ON CONFLICT DO NOTHING), then a short transaction locks that row FOR UPDATE and decides under the lock (done: ack; running with a live 60 s lease: come back later; otherwise take it with a new lease), so of two concurrent deliveries the second waits, re-reads the first's claim and backs off; the e-mail goes after COMMIT with the event's key and the row is marked done after it.
import type { DbClient, Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

type Decision = 'done' | 'busy' | 'mine';

async function decide(client: DbClient, eventId: string): Promise<Decision> {
  const { rows } = await client.query<{ state: string; live: boolean }>(
    'SELECT state, lease_until > now() AS live FROM webhook_inbox WHERE event_id = $1 FOR UPDATE',
    [eventId],
  );
  const row = rows[0];
  if (!row) throw new Error(`no inbox row for ${eventId}`);
  if (row.state === 'done') return 'done';
  if (row.state === 'running' && row.live) return 'busy';
  await client.query(`UPDATE webhook_inbox SET state = 'running', lease_until = now() + interval '60 seconds' WHERE event_id = $1`, [eventId]);
  return 'mine';
}

export async function handleMessage(event: PaymentEvent, env: Env) {
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS webhook_inbox (
       event_id text PRIMARY KEY,
       state text NOT NULL,
       lease_until timestamptz NOT NULL
     )`,
  );
  await env.db.query(
    `INSERT INTO webhook_inbox (event_id, state, lease_until) VALUES ($1, 'new', now()) ON CONFLICT (event_id) DO NOTHING`,
    [event.eventId],
  );
  const client = await env.db.connect();
  let decision: Decision;
  try {
    await client.query('BEGIN');
    decision = await decide(client, event.eventId);
    await client.query('COMMIT');
  } catch (err) {
    try {
      await client.query('ROLLBACK');
      client.release();
    } catch (rollbackErr) {
      client.release(rollbackErr as Error);
    }
    throw err;
  }
  client.release();
  if (decision === 'done') return 'ack';
  if (decision === 'busy') return 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send(
      { to: event.customer, orderId: event.orderId, template: 'payment-received' },
      { idempotencyKey: `payment-webhook:${event.eventId}` },
    );
  }
  await env.db.query(`UPDATE webhook_inbox SET state = 'done' WHERE event_id = $1`, [event.eventId]);
  return 'ack';
}
