// expect: right
// kind: row-lock
// why: every worker that gets past the fast path locks the order's gate row FOR UPDATE, keyed by a name-based UUID derived from the order id (the same for every worker), before it reads and claims, so check and claim run one worker at a time; the waiter's next read is a fresh READ COMMITTED snapshot that sees the first claim, and the send comes after COMMIT with a 60 s lease for takeovers.
import { opKey, complete, sha256Hex, type Env, type ReceiptMessage } from 'effectively-once';

/** A name-based UUID for the order's gate (same order, same UUID, on every worker). */
function gateId(orderId: number): string {
  const h = sha256Hex(`receipt-gate:${orderId}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

async function ensureGates(env: Env) {
  try {
    await env.db.query('CREATE TABLE IF NOT EXISTS receipt_gates (gate_id uuid PRIMARY KEY)');
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P07') throw err;
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // Fast path, no locks: a finished or live claim needs no gate.
  const fast = await env.db.query<{ state: string; live: boolean }>('SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1', [key]);
  if (fast.rows[0]?.state === 'done') return 'ack';
  if (fast.rows[0]?.live) return 'retry-later';

  await ensureGates(env);
  const gate = gateId(msg.orderId);
  await env.db.query('INSERT INTO receipt_gates (gate_id) VALUES ($1) ON CONFLICT (gate_id) DO NOTHING', [gate]);
  const c = await env.db.connect();
  let decision: 'send' | 'ack' | 'retry-later';
  try {
    await c.query('BEGIN');
    await c.query('SELECT gate_id FROM receipt_gates WHERE gate_id = $1 FOR UPDATE', [gate]);
    const { rows } = await c.query<{ state: string; live: boolean }>('SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1', [key]);
    const row = rows[0];
    if (row?.state === 'done') decision = 'ack';
    else if (row?.live) decision = 'retry-later';
    else {
      await c.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      decision = 'send';
    }
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
  if (decision !== 'send') return decision;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
