// expect: right
// kind: compare-and-set
// why: the receipt's row is upserted with a no-op update and `RETURNING xmax = 0` tells the delivery that inserted it from the others (a conflicting insert waits for the first and then sees its row); an existing unfinished row is taken over only by a guarded UPDATE once its lease ran out, so one delivery at a time sends, the row is marked done after, and a done row is acknowledged.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function mine(env: Env, key: string): Promise<boolean | 'done'> {
  const { rows } = await env.db.query<{ fresh: boolean; state: string; expired: boolean }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET op_key = EXCLUDED.op_key
     RETURNING (xmax = 0) AS fresh, state, lease_until < now() AS expired`,
    [key],
  );
  const row = rows[0]!;
  if (row.fresh) return true;
  if (row.state === 'done') return 'done';
  if (!row.expired) return false;
  const taken = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '60 seconds'
     WHERE op_key = $1 AND state <> 'done' AND lease_until < now() RETURNING op_key`,
    [key],
  );
  return taken.rows.length === 1;
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const got = await mine(env, key);
  if (got === 'done') return 'ack';
  if (!got) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
