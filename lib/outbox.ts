/**
 * The transactional outbox: the business row and its message commit together or not at all,
 * and a relay publishes committed messages afterwards.
 *
 * Guarantees: no committed order without its message, no message for an order that never
 * committed. The relay is at-least-once: a crash after publish and before COMMIT publishes the
 * same rows again, which the idempotent consumer downstream absorbs. `FOR UPDATE SKIP LOCKED`
 * lets several relays share the table without publishing the same row concurrently.
 *
 * Order is kept only within one pass: two relays publish their batches side by side, a rolled-back
 * pass publishes its rows again after later ones, and ids can commit out of order. A consumer that
 * needs order must get it from the message (a version or sequence per entity), not from delivery.
 */
import type { Db } from './db';
import { withTransaction } from './db';

/** An order as the shop submits it. */
export interface NewOrder {
  customerId: string;
  totalCents: number;
}

/** An outbox row the relay publishes. */
export interface OutboxRow {
  id: number;
  topic: string;
  payload: unknown;
}

/** Insert the order and its `order-placed` message in one transaction; returns the order id. */
export function placeOrder(db: Db, order: NewOrder): Promise<number> {
  return withTransaction(db, async (client) => {
    const { rows } = await client.query<{ id: number }>(
      'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
      [order.customerId, order.totalCents],
    );
    const orderId = Number(rows[0].id);
    await client.query(`INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)`, [
      JSON.stringify({ orderId }),
    ]);
    return orderId;
  });
}

/** Options of `relayOnce`. */
export interface RelayOptions {
  /** Most rows one pass publishes. */
  batchSize?: number;
}

/**
 * Publish up to `batchSize` unpublished rows in id order and mark them published, in one
 * transaction; on any error roll back (the rows stay unpublished) and rethrow.
 * Returns the rows published.
 */
export function relayOnce(
  db: Db,
  publish: (topic: string, payload: unknown, row: OutboxRow) => Promise<void>,
  options: RelayOptions = {},
): Promise<OutboxRow[]> {
  return withTransaction(db, async (client) => {
    const { rows } = await client.query<OutboxRow>(
      `SELECT id, topic, payload FROM outbox WHERE published_at IS NULL
       ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [options.batchSize ?? 100],
    );
    for (const row of rows) await publish(row.topic, row.payload, row);
    if (rows.length) {
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    }
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  });
}
