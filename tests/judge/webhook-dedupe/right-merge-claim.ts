// expect: right
// kind: first-writer-wins
// why: the claim is one PostgreSQL 15 MERGE (no RETURNING, its row count read): it inserts the event's key or takes over an expired unfinished claim, re-checked on the newest row; a concurrent MERGE that also found no row fails on the primary key (23505) and the delivery comes back later, so one handler at a time sends, with the key as the provider's idempotency key, and marks it done after.
import { opKey, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const merged = await env.db.query(
    `MERGE INTO operations o
     USING (SELECT $1::text AS k) s ON o.op_key = s.k
     WHEN MATCHED AND o.state <> 'done' AND o.lease_until < now() THEN
       UPDATE SET state = 'running', lease_until = now() + interval '60 seconds'
     WHEN NOT MATCHED THEN
       INSERT (op_key, state, lease_until) VALUES (s.k, 'running', now() + interval '60 seconds')`,
    [key],
  );
  if (merged.rowCount !== 1) {
    const { rows } = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
