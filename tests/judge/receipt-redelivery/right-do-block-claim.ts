// expect: right
// kind: compare-and-set
// why: the claim is one DO block (a single statement, atomic): it inserts the key or takes over an expired unfinished claim, and raises a custom SQLSTATE when the key is done or held, which the handler reads as "acknowledge" or "retry later"; only a delivery whose DO block returned normally sends, with the key as the provider's.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });   // hex only: safe to inline
  try {
    await env.db.query(`
      DO $$
      DECLARE st text;
      BEGIN
        INSERT INTO operations (op_key, state, lease_until)
        VALUES ('${key}', 'running', now() + interval '60 seconds')
        ON CONFLICT (op_key) DO UPDATE
          SET lease_until = now() + interval '60 seconds'
          WHERE operations.state = 'running' AND operations.lease_until < now();
        IF NOT FOUND THEN
          SELECT state INTO st FROM operations WHERE op_key = '${key}';
          IF st = 'done' THEN RAISE EXCEPTION 'done' USING ERRCODE = 'EOD01';
          ELSE RAISE EXCEPTION 'held' USING ERRCODE = 'EOH01';
          END IF;
        END IF;
      END $$`);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EOD01') return 'ack';
    if (code === 'EOH01') return 'retry-later';
    throw err;
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
