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
  async check({ db }) {
    const [row] = await db.inspect(`SELECT value FROM counters WHERE name = 'orders_shipped'`);
    const value = Number(row?.value ?? 0);
    return value > 1
      ? { held: false, detail: `orders_shipped = ${value} after one shipped order: the replay counted it again` }
      : { held: true, detail: `orders_shipped = ${value}` };
  },
};

export const noDuplicateRow: Invariant = {
  id: 'no-duplicate-row',
  title: 'The audit log holds one line per event',
  async check({ db }) {
    const rows = await db.inspect('SELECT event_id FROM audit_log WHERE event_id = $1', [EVENT.eventId]);
    return rows.length > 1
      ? { held: false, detail: `audit_log holds ${rows.length} lines for ${EVENT.eventId}: every sum over it is now wrong` }
      : { held: true, detail: `${rows.length} audit line for ${EVENT.eventId}` };
  },
};

export const everythingApplied: Invariant = {
  id: 'every-effect-applied',
  title: 'Every operation took effect',
  async check({ db, outcome }) {
    const missing: string[] = [];
    const [ship] = await db.inspect('SELECT status FROM shipments WHERE order_id = $1', [EVENT.orderId]);
    if (ship?.status !== 'shipped') missing.push(`shipment status is ${String(ship?.status)}`);
    if (!(await db.inspect('SELECT 1 FROM customers WHERE id = $1', [EVENT.customerId])).length) missing.push('the customer was never upserted');
    const [counter] = await db.inspect(`SELECT value FROM counters WHERE name = 'orders_shipped'`);
    if (Number(counter?.value ?? 0) < 1) missing.push('the counter was never incremented');
    if (!(await db.inspect('SELECT 1 FROM audit_log WHERE event_id = $1', [EVENT.eventId])).length) missing.push('no audit line');
    if (!outcome.ledger.charges.some((c) => c.orderId === EVENT.orderId)) missing.push('the card was never charged');
    if (!outcome.ledger.emails.some((e) => e.orderId === EVENT.orderId)) missing.push('no e-mail was sent');
    if (!outcome.ledger.credits.some((c) => c.kind === 'lookup')) missing.push('the lookup never ran');
    if (!outcome.ledger.credits.some((c) => c.kind === 'transform')) missing.push('the invoice was never rendered');
    return missing.length ? { held: false, detail: missing.join('; ') } : { held: true, detail: 'all eight operations took effect' };
  },
};

