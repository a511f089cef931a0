// expect: right
// kind: compare-and-set
// why: the event's row is upserted with a no-op update and `RETURNING xmax = 0` tells a fresh insert from an existing row (the conflicting insert waits for and then locks the row); an existing unfinished row is taken over only by a guarded UPDATE on an expired lease, so exactly one delivery handles the event.
import { opKey, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

async function ownsEvent(env: Env, key: string): Promise<boolean | 'done'> {
  const upsert = await env.db.query<{ fresh: boolean; state: string; expired: boolean }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '1 minute')
     ON CONFLICT (op_key) DO UPDATE SET op_key = EXCLUDED.op_key
     RETURNING (xmax = 0) AS fresh, state, lease_until < now() AS expired`,
    [key],
  );
  const row = upsert.rows[0]!;
  if (row.fresh) return true;
  if (row.state === 'done') return 'done';
  if (!row.expired) return false;
  const taken = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '1 minute'
     WHERE op_key = $1 AND state <> 'done' AND lease_until < now() RETURNING op_key`,
    [key],
  );
  return taken.rows.length === 1;
}

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const mine = await ownsEvent(env, key);
  if (mine === 'done') return 'ack';
  if (!mine) return 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
