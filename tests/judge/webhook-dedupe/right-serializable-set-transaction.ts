// expect: right
// kind: first-writer-wins
// why: the lib's withTransaction opens the transaction and its first statement, SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, makes it serializable; the event's key is read and claimed in it, so of two handlers that both read no live claim PostgreSQL commits one and fails the other (40001 or 23505), which answers retry-later; the e-mail goes out after COMMIT with the event's key, and a 60 s lease lets a takeover follow a crash.
import { opKey, complete, withTransaction, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  let verdict: string;
  try {
    verdict = await withTransaction(env.db, async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL SERIALIZABLE');
      const { rows } = await tx.query<{ state: string; live: boolean }>(
        'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
        [key],
      );
      if (rows[0]?.state === 'done') return 'ack';
      if (rows[0]?.live) return 'retry-later';
      await tx.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      return 'mine';
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === '40001' || code === '23505') return 'retry-later';
    throw err;
  }
  if (verdict !== 'mine') return verdict;
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
