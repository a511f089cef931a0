/**
 * The lesson's table of operations, run: one "order shipped" event does a lookup, a
 * transformation, sets a field, upserts a customer, charges a card, sends an e-mail, increments a
 * counter and appends an audit row — and the same event is then handled a second time. What the
 * replay cost shows in the ledger (credits, a second charge, a second e-mail) and the tables (a
 * wrong counter, a duplicate row). The bins of each operation live in ../replay-safety.ts.
 */
import type { Invariant } from './scenario';

export interface ShipEvent {
  eventId: string;
  orderId: number;
  customer: string;
  customerId: string;
  amountCents: number;
  invoiceHtml: string;
}

export const EVENT: ShipEvent = {
  eventId: 'evt_ship_1042',
  orderId: 1042,
  customer: 'ada@example.com',
  customerId: 'cus_ada',
  amountCents: 4999,
  invoiceHtml: '<h1>Invoice 1042</h1><p>Total $49.99</p>',
};
/** The same event is handled again two minutes later (a redelivery, a rerun). */
export const REPLAY_AFTER_MS = 120_000;

/**
 * On seeds 4, 8, 12, … Ada's next order, 1043, at the same price, ships ten minutes after the first
 * event: a key on the customer, the amount or the address meets the first order's.
 */
export const NEXT_EVENT: ShipEvent = {
  eventId: 'evt_ship_1043',
  orderId: 1043,
  customer: EVENT.customer,
  customerId: EVENT.customerId,
  amountCents: EVENT.amountCents,
  invoiceHtml: '<h1>Invoice 1043</h1><p>Total $49.99</p>',
};
export const NEXT_SHIPMENT_AFTER_MS = 600_000;
export function nextShipmentOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 4 === 0;
}
/** The events a run with `seed` handles. */
export function shipEventsFor(seed: number | undefined): ShipEvent[] {
  return nextShipmentOn(seed) ? [EVENT, NEXT_EVENT] : [EVENT];
}
/** The tables for a run with `seed`: a packed shipment for each of its orders. */
export function setupSqlFor(seed: number | undefined): string {
  return nextShipmentOn(seed) ? `${SETUP_SQL}INSERT INTO shipments (order_id, status) VALUES (${NEXT_EVENT.orderId}, 'packed');\n` : SETUP_SQL;
}
/** The run's events, as the world recorded them for the checkers. */
function eventsOf(observed: Record<string, unknown>): ShipEvent[] {
  return Array.isArray(observed.events) ? (observed.events as ShipEvent[]) : [EVENT];
}

export const SETUP_SQL = `
CREATE TABLE IF NOT EXISTS shipments (order_id integer PRIMARY KEY, status text NOT NULL);
CREATE TABLE IF NOT EXISTS customers (id text PRIMARY KEY, email text NOT NULL, last_order integer);
CREATE TABLE IF NOT EXISTS counters (name text PRIMARY KEY, value integer NOT NULL);
CREATE TABLE IF NOT EXISTS audit_log (event_id text NOT NULL, order_id integer NOT NULL, line text NOT NULL);
DELETE FROM shipments; DELETE FROM customers; DELETE FROM counters; DELETE FROM audit_log;
INSERT INTO shipments (order_id, status) VALUES (${EVENT.orderId}, 'packed');
INSERT INTO counters (name, value) VALUES ('orders_shipped', 0);
`;

export const counterCorrect: Invariant = {
  id: 'counter-correct',
  title: 'The shipped counter counts the event once',
  async check({ db, observed }) {
    const events = eventsOf(observed).length;
    const [row] = await db.inspect(`SELECT value FROM counters WHERE name = 'orders_shipped'`);
    const value = Number(row?.value ?? 0);
    const shipped = events === 1 ? 'one shipped order' : `${events} shipped orders`;
    return value > events
      ? { held: false, detail: `orders_shipped = ${value} after ${shipped}: the replay counted it again` }
      : { held: true, detail: `orders_shipped = ${value}` };
  },
};

export const noDuplicateRow: Invariant = {
  id: 'no-duplicate-row',
  title: 'The audit log holds one line per event',
  async check({ db, observed }) {
    const found: string[] = [];
    for (const event of eventsOf(observed)) {
      const rows = await db.inspect('SELECT event_id FROM audit_log WHERE event_id = $1', [event.eventId]);
      if (rows.length > 1) return { held: false, detail: `audit_log holds ${rows.length} lines for ${event.eventId}: every sum over it is now wrong` };
      found.push(`${rows.length} audit line for ${event.eventId}`);
    }
    return { held: true, detail: found.join(', ') };
  },
};

export const everythingApplied: Invariant = {
  id: 'every-effect-applied',
  title: 'Every operation took effect',
  async check({ db, outcome, observed }) {
    const events = eventsOf(observed);
    const missing: string[] = [];
    for (const event of events) {
      // Which order it is, where the run has two.
      const of = events.length > 1 ? ` (order ${event.orderId})` : '';
      const [ship] = await db.inspect('SELECT status FROM shipments WHERE order_id = $1', [event.orderId]);
      if (ship?.status !== 'shipped') missing.push(`shipment status is ${String(ship?.status)}${of}`);
      if (!(await db.inspect('SELECT 1 FROM audit_log WHERE event_id = $1', [event.eventId])).length) missing.push(`no audit line${of}`);
      if (!outcome.ledger.charges.some((c) => c.orderId === event.orderId)) missing.push(`the card was never charged${of}`);
      if (!outcome.ledger.emails.some((e) => e.orderId === event.orderId)) missing.push(`no e-mail was sent${of}`);
    }
    if (!(await db.inspect('SELECT 1 FROM customers WHERE id = $1', [EVENT.customerId])).length) missing.push('the customer was never upserted');
    const [counter] = await db.inspect(`SELECT value FROM counters WHERE name = 'orders_shipped'`);
    if (Number(counter?.value ?? 0) < events.length) missing.push(events.length === 1 ? 'the counter was never incremented' : `the counter is ${Number(counter?.value ?? 0)} after ${events.length} shipped orders`);
    if (!outcome.ledger.credits.some((c) => c.kind === 'lookup')) missing.push('the lookup never ran');
    if (!outcome.ledger.credits.some((c) => c.kind === 'transform')) missing.push('the invoice was never rendered');
    return missing.length ? { held: false, detail: missing.join('; ') } : { held: true, detail: events.length === 1 ? 'all eight operations took effect' : `all eight operations took effect for both orders` };
  },
};
