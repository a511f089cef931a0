/**
 * The lesson's table of operations, run: one "order shipped" event does a lookup, a
 * transformation, sets a field, upserts a customer, charges a card, sends an e-mail, increments a
 * counter and appends an audit row — and the same event is then handled a second time. What the
 * replay cost shows in the ledger (credits, a second charge, a second e-mail) and the tables (a
 * wrong counter, a duplicate row). The bins of each operation live in ../replay-safety.ts.
 */
import { exportedFunction } from '../learner/compile';
import type { CodeError, Invariant, Scenario } from '../lessons/kit/scenario';
import type { Env, Fault } from '../engine/types';
import { atMostOneEmail, noDoubleCharge, oneShot } from '../lessons/kit/one-shot';

interface ShipEvent {
  eventId: string;
  orderId: number;
  customer: string;
  customerId: string;
  amountCents: number;
  invoiceHtml: string;
}

const EVENT: ShipEvent = {
  eventId: 'evt_ship_1042',
  orderId: 1042,
  customer: 'ada@example.com',
  customerId: 'cus_ada',
  amountCents: 4999,
  invoiceHtml: '<h1>Invoice 1042</h1><p>Total $49.99</p>',
};
/** The same event is handled again two minutes later (a redelivery, a rerun). */
const REPLAY_AFTER_MS = 120_000;

const SETUP_SQL = `
CREATE TABLE IF NOT EXISTS shipments (order_id integer PRIMARY KEY, status text NOT NULL);
CREATE TABLE IF NOT EXISTS customers (id text PRIMARY KEY, email text NOT NULL, last_order integer);
CREATE TABLE IF NOT EXISTS counters (name text PRIMARY KEY, value integer NOT NULL);
CREATE TABLE IF NOT EXISTS audit_log (event_id text NOT NULL, order_id integer NOT NULL, line text NOT NULL);
DELETE FROM shipments; DELETE FROM customers; DELETE FROM counters; DELETE FROM audit_log;
INSERT INTO shipments (order_id, status) VALUES (${EVENT.orderId}, 'packed');
INSERT INTO counters (name, value) VALUES ('orders_shipped', 0);
`;

const counterCorrect: Invariant = {
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

const noDuplicateRow: Invariant = {
  id: 'no-duplicate-row',
  title: 'The audit log holds one line per event',
  async check({ db }) {
    const rows = await db.inspect('SELECT event_id FROM audit_log WHERE event_id = $1', [EVENT.eventId]);
    return rows.length > 1
      ? { held: false, detail: `audit_log holds ${rows.length} lines for ${EVENT.eventId}: every sum over it is now wrong` }
      : { held: true, detail: `${rows.length} audit line for ${EVENT.eventId}` };
  },
};

const everythingApplied: Invariant = {
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

const EVENT_TYPE = `type ShipEvent = {
  eventId: string; orderId: number; amountCents: number;
  customer: string; customerId: string; invoiceHtml: string;
};`;

/** The four operations that are safe by nature, the same in both variants. */
const SAFE_FOUR = `  await env.lookup.check({
    kind: 'email-deliverability',
    value: event.customer,
  });
  await env.transform.call({ kind: 'html-to-pdf', input: event.invoiceHtml });
  await env.db.query(
    \`UPDATE shipments SET status = 'shipped' WHERE order_id = $1\`,
    [event.orderId],
  );
  await env.db.query(
    \`INSERT INTO customers (id, email, last_order) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE
       SET email = EXCLUDED.email, last_order = EXCLUDED.last_order\`,
    [event.customerId, event.customer, event.orderId],
  );`;

export const replaySafety: Scenario = {
  id: 'replay-safety',
  title: 'What does a replay cost?',
  entry: 'handleShipped',
  brief: [
    'An operation is idempotent when doing it twice leaves the world as doing it once did. Some operations are so by nature; for others a replay costs money, a customer\'s patience, or a wrong number.',
    'Here one "order shipped" event does eight things: a lookup, an HTML-to-PDF transformation, setting the shipment\'s status, upserting the customer, charging the card, sending an e-mail, incrementing a counter and appending an audit line. Two minutes later the same event is handled again. Watch the ledger and the tables: what did the replay cost?',
    'Sort them: the lookup and the transformation cost credits again, setting a field and the upsert cost nothing; the charge needs the provider\'s idempotency key; the e-mail, the counter and the appended row need our own dedupe. Protect the ones that need it. The counter and the audit line are our own writes: record them and their key in one transaction, so a crash cannot leave one without the other. And when a claim is neither yours nor done, another run is on it or died on it: fail this attempt, so the event is handled again later, rather than skip the e-mail. A failed attempt is tried again 30 s later, so a 30 s lease (claim(env.db, key, 30)) lets that attempt take over from a run that died.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Does all eight every time. The safe half survives the replay; the charge, the e-mail, the counter and the audit line happen twice.',
      code: `import type { Env } from 'effectively-once';

${EVENT_TYPE}

export async function handleShipped(event: ShipEvent, env: Env) {
${SAFE_FOUR}
  await env.payments.charge({
    orderId: event.orderId,
    amountCents: event.amountCents,
    customer: event.customerId,
  });
  await env.email.send({
    to: event.customer,
    orderId: event.orderId,
    template: 'shipped',
  });
  await env.db.query(
    \`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'\`,
  );
  await env.db.query(
    'INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)',
    [event.eventId, event.orderId, 'order shipped'],
  );
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        'The safe four stay as they are. The charge carries a key derived from the order; the e-mail is claimed and completed under its own key (and sent with it); the counter and the audit line are written in one transaction that first records the event\'s key, so a replay finds it and writes nothing.',
      code: `import { opKey, claim, complete, withTransaction } from 'effectively-once';
import type { Env } from 'effectively-once';

${EVENT_TYPE}

export async function handleShipped(event: ShipEvent, env: Env) {
  // Safe by nature: a replay costs credits (lookup, transformation)
  // or nothing at all (set a field, upsert by id).
${SAFE_FOUR}

  // Needs a key: the provider returns the original charge to a replay within
  // the day, as here. A rerun days later needs the operations table as well
  // (the provider may have forgotten the key; see "Yesterday's job").
  const chargeKey = opKey('charge', { orderId: event.orderId });
  await env.payments.charge(
    {
      orderId: event.orderId,
      amountCents: event.amountCents,
      customer: event.customerId,
    },
    { idempotencyKey: chargeKey },
  );

  // Needs dedupe: claim the e-mail, send it with the same key, mark it done.
  const emailKey = opKey('shipped-email', { orderId: event.orderId });
  const c = await claim(env.db, emailKey, 30);
  if (c.owned) {
    const sent = await env.email.send(
      { to: event.customer, orderId: event.orderId, template: 'shipped' },
      { idempotencyKey: emailKey },
    );
    await complete(env.db, emailKey, sent);
  } else if (!c.done) {
    // Someone else holds the claim and has not finished: fail this
    // attempt, so the event is handled again later.
    throw new Error('the shipped e-mail is being sent elsewhere; retry later');
  }

  // Needs dedupe: record the event's key and count it in one
  // transaction, or not at all.
  await withTransaction(env.db, async (tx) => {
    const first = await tx.query(
      \`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
       ON CONFLICT (op_key) DO NOTHING RETURNING op_key\`,
      [opKey('count-shipped', { eventId: event.eventId })],
    );
    if (first.rows.length === 0) return;      // counted and logged already
    await tx.query(
      \`UPDATE counters SET value = value + 1 WHERE name = 'orders_shipped'\`,
    );
    await tx.query(
      'INSERT INTO audit_log (event_id, order_id, line) VALUES ($1, $2, $3)',
      [event.eventId, event.orderId, 'order shipped'],
    );
  });
}
`,
    },
  },
  build(mod) {
    const handle = exportedFunction<(event: ShipEvent, env: Env) => Promise<unknown>>(mod, 'handleShipped');
    const observed: Record<string, unknown> = {};
    const codeErrors: CodeError[] = [];
    return {
      spec: {
        processes: [
          oneShot('first-run', (env) => handle({ ...EVENT }, env), observed, codeErrors, { why: `handling ${EVENT.eventId}` }),
          oneShot('replay', (env) => handle({ ...EVENT }, env), observed, codeErrors, {
            startAfterMs: REPLAY_AFTER_MS,
            why: `${EVENT.eventId} arrives again, two minutes later (and again 30 s after any failure, up to 3 times)`,
            attempts: 3,
            retryDelayMs: 30_000,
          }),
        ],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000, emailHonoursKeys: true, metered: { credits: 100, answerPeriodMs: 60_000 } },
        setupSql: SETUP_SQL,
        horizonMs: 3_600_000,
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [],
    story: 'No fault at all: the same "order shipped" event is simply handled twice, two minutes apart.',
  },
  faultMenu: [
    { kind: 'lose-response', call: 'payments.charge', nth: 1 },
    { kind: 'lose-response', call: 'email.send', nth: 1 },
    { kind: 'crash', process: 'first-run', after: 'email.send' },
    { kind: 'crash', process: 'first-run', before: 'payments.charge' },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 3 },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 4 },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 5 },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 6 },
  ] satisfies Fault[],
  maxFaults: 2,
  invariants: [
    noDoubleCharge([EVENT.orderId]),
    atMostOneEmail([EVENT.orderId], 'at-most-one-email', 'At most one "shipped" e-mail', 'shipped'),
    counterCorrect,
    noDuplicateRow,
    everythingApplied,
  ],
  tables: ['shipments', 'customers', 'counters', 'audit_log', 'operations'],
  actors: ['first-run', 'replay', 'postgres', 'lookup', 'transform', 'payments', 'email'],
};
