/**
 * The idempotent consumer: claim an operation's key atomically, do the work, mark it done.
 *
 * Guarantees: of any number of workers handling the same operation, one at a time holds an
 * unexpired lease on it (the primary key makes check-and-claim one atomic statement); once `done`,
 * the work is never started again. Choose a lease longer than the work: a worker overtaken after
 * its lease ran out still finishes, and only a provider key stops its second side effect. Tolerates: redelivery, two concurrent deliveries, and a worker dying mid-work
 * (its lease expires and another worker takes the key over). Does not close, by itself, the gap
 * between a side effect and `complete`: pass the same key to a provider that honours one.
 */
import type { Queryable } from './db';
import { opKey } from './op-key';

/** What `claim` found. */
export type Claim =
  | { owned: true }
  | { owned: false; done: boolean; result: unknown };

/**
 * Try to own `key` for `leaseSeconds`. Inserts a `running` row, or takes over one whose lease has
 * expired and is not `done`; otherwise reports whether the operation is finished, and its result.
 */
export async function claim(db: Queryable, key: string, leaseSeconds = 120): Promise<Claim> {
  const { rows } = await db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', now() + make_interval(secs => $2))
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = now() + make_interval(secs => $2)
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING op_key`,
    [key, leaseSeconds],
  );
  if (rows.length) return { owned: true };
  const existing = await db.query<{ state: string; result: unknown }>(
    'SELECT state, result FROM operations WHERE op_key = $1',
    [key],
  );
  const row = existing.rows[0];
  return { owned: false, done: row?.state === 'done', result: row?.result ?? null };
}

/** Mark `key` done and store the result replays will be answered with. */
export async function complete(db: Queryable, key: string, result: unknown): Promise<void> {
  await db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [
    key,
    JSON.stringify(result ?? null),
  ]);
}

/** A queue message asking for an order's receipt. */
export interface OrderMessage {
  orderId: number;
}

/** What the consumer tells the queue: acknowledge, or leave the message for a later redelivery. */
export type Disposition = 'ack' | 'retry-later';

/** Options of `handleMessage`. */
export interface HandleOptions {
  /** Sends the receipt; receives the operation's key to pass on as the provider's idempotency key. */
  sendReceipt(orderId: number, options: { idempotencyKey: string }): Promise<unknown>;
  /** How long a claim protects the work before another worker may take it over. */
  leaseSeconds?: number;
}

/** Send one receipt per order, however often the message arrives. */
export async function handleMessage(db: Queryable, msg: OrderMessage, options: HandleOptions): Promise<Disposition> {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(db, key, options.leaseSeconds ?? 120);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const result = await options.sendReceipt(msg.orderId, { idempotencyKey: key });
  await complete(db, key, result);
  return 'ack';
}
