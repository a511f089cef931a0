// expect: wrong
// kind: check-then-act
// why: the DO block raises only when its PERFORM finds the key, and the INSERT that follows is ON CONFLICT DO NOTHING with no check of FOUND; on PostgreSQL two workers' blocks both find no row, one inserts, the other's insert waits and then silently does nothing, neither raises, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const lit = key.replace(/'/g, "''");
  try {
    // One round trip: refuse if the key is known, else take it.
    await env.db.query(`DO $$
      BEGIN
        PERFORM 1 FROM operations WHERE op_key = '${lit}' AND (state = 'done' OR lease_until > now());
        IF NOT FOUND THEN
          INSERT INTO operations (op_key, state, lease_until) VALUES ('${lit}', 'running', now() + interval '60 seconds')
          ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
            WHERE operations.state <> 'done' AND operations.lease_until < now();
        ELSE
          RAISE EXCEPTION 'receipt % already taken', '${lit}' USING ERRCODE = 'P0001';
        END IF;
      END $$`);
  } catch (err) {
    if ((err as { code?: string }).code !== 'P0001') throw err;
    const { rows } = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
