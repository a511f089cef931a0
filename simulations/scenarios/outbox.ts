/**
 * The sending side of the lesson: the dual write and the transactional outbox, a relay that
 * crashes between publish and COMMIT, two relays sharing one outbox, and webhooks delivered more
 * than once. Every committed order must be acted on exactly once, and nothing may be published for
 * an order that never committed.
 */
import { placeOrder, relayOnce } from '../../lib/outbox';
import type { ProcessSpec } from '../engine/scheduler';
import {
  atMostOneReceipt,
  caughtThrow,
  firstInTransaction,
  everyOrderReceipted,
  handlerOf,
  messagesSettled,
  noEmailInsideTransaction,
  WORKER_RESTART,
  workerProcess,
  type CodeError,
  type Invariant,
  type Scenario,
} from '../lessons/kit/scenario';
import type { Env, Fault } from '../engine/types';
import { atMostOneEmail } from '../lessons/kit/one-shot';

const ORDER = { customerId: 'cus_ada', totalCents: 4999 };
const CUSTOMER_EMAIL = 'ada@example.com';

/** Passes a relay makes per incarnation, one every `RELAY_INTERVAL_MS`. */
const RELAY_POLLS = 5;
const RELAY_INTERVAL_MS = 2_000;
/**
 * In dual-write the shop may crash twice and retry after each restart (5 s apiece), so its
 * relay polls for 20 s: a row committed by the last retry is still published.
 */
const DUAL_WRITE_RELAY_POLLS = 10;

/** A relay that calls `pass(env)` every 2 s, `polls` times per incarnation; a crash restarts it. */
function relayProcess(id: string, pass: (env: Env) => Promise<unknown>, codeErrors: CodeError[], polls = RELAY_POLLS): ProcessSpec {
  return {
    id,
    producer: true,
    restart: WORKER_RESTART,
    async main(env) {
      for (let poll = 0; poll < polls; poll++) {
        try {
          await pass(env);
        } catch (err) {
          const { what, said, loc } = caughtThrow(err);
          codeErrors.push({ process: id, message: what, ...loc });
          env.log(`relay pass failed: ${said}; the rows stay unpublished`);
        }
        await env.sleep(RELAY_INTERVAL_MS);
      }
    },
  };
}

/**
 * The shop: one checkout, placed through the learner's or lib's code. With `retryAfterCrash`, a
 * crash restarts the shop and the checkout is placed again, as a customer who never saw a
 * confirmation presses Buy again; the attempt count lives outside the process (it is the
 * customer's), so it survives the crash.
 */
function shopProcess(
  place: (order: typeof ORDER, env: Env) => Promise<unknown>,
  codeErrors: CodeError[],
  retryAfterCrash = false,
  observed: Record<string, unknown> = {},
): ProcessSpec {
  let attempts = 0;
  return {
    id: 'shop',
    producer: true,
    ...(retryAfterCrash ? { restart: WORKER_RESTART } : {}),
    async main(env) {
      attempts++;
      if (attempts > 1) env.log(`checkout retried (attempt ${attempts}): the customer never got a confirmation, so the order is placed again`);
      try {
        const id = await place({ ...ORDER }, env);
        // Returning without an error is the confirmation the customer sees.
        observed.confirmed = [...((observed.confirmed as unknown[] | undefined) ?? []), id];
        env.log(`order ${String(id)} placed`);
      } catch (err) {
        const { what, said, loc, fromLearner } = caughtThrow(err);
        if (fromLearner) codeErrors.push({ process: 'shop', message: what, ...loc });
        env.log(`placing the order failed: ${said}`);
      }
    },
  };
}

/** The lib relay, publishing each row's payload under its topic. */
const libRelayPass = (env: Env) => relayOnce(env.db, (topic, payload) => env.queue.publish(topic, payload));

async function committedOrders(ctx: Parameters<Invariant['check']>[0]): Promise<number[]> {
  return (await ctx.db.inspect('SELECT id FROM orders ORDER BY id')).map((r) => Number(r.id));
}

function publishedOrderIds(ctx: Parameters<Invariant['check']>[0]): { orderId: number; step: number }[] {
  return ctx.outcome.ledger.published
    .filter((p) => p.topic === 'order-placed')
    .map((p) => ({ orderId: Number((p.body as { orderId?: unknown })?.orderId), step: p.step }));
}

const listOf = (ids: number[]) => (ids.length === 1 ? `order ${ids[0]}` : `orders ${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]}`);

/**
 * What the shop went through, read from the trace: crashes, crashes that rolled a transaction back,
 * and the order ids its INSERTs returned (an id missing from the table afterwards was rolled back).
 */
function shopHistory(ctx: Parameters<Invariant['check']>[0]): { crashes: number; rollbacks: number; insertedIds: number[] } {
  const shop = ctx.outcome.trace.filter((e) => e.actor === 'shop');
  const insertedIds = shop
    .filter((e) => e.type === 'db')
    .map((e) => (e.data ?? {}) as { sql?: unknown; rows?: unknown })
    .filter((d) => typeof d.sql === 'string' && /^\s*insert\s+into\s+orders\b/i.test(d.sql))
    .flatMap((d) => (Array.isArray(d.rows) ? (d.rows as { id?: unknown }[]) : []).map((r) => Number(r?.id)))
    .filter((id) => Number.isInteger(id));
  return { crashes: shop.filter((e) => e.type === 'crash').length, rollbacks: shop.filter((e) => e.type === 'rollback').length, insertedIds };
}

const nothingLost: Invariant = {
  id: 'nothing-lost',
  title: 'Every committed order is published',
  async check(ctx) {
    const orders = await committedOrders(ctx);
    const publishers = new Map<number, string>();
    for (const p of ctx.outcome.ledger.published.filter((m) => m.topic === 'order-placed')) {
      const id = Number((p.body as { orderId?: unknown })?.orderId);
      if (!publishers.has(id)) publishers.set(id, p.by);
    }
    const lost = orders.filter((id) => !publishers.has(id));
    const announced = orders.filter((id) => publishers.has(id));
    const { crashes, rollbacks, insertedIds } = shopHistory(ctx);
    if (lost.length) {
      // A retried checkout that saved and announced a second row: say so, it is the other half of the damage.
      const retry = crashes && announced.length ? `; the retried checkout saved the purchase again as ${listOf(announced)} and announced only that, so one purchase left ${orders.length} order rows` : '';
      return { held: false, detail: `${listOf(lost)} committed, but no "order-placed" message was ever published: no receipt, no enrichment${retry}` };
    }
    if (!orders.length) return { held: true, detail: '0 committed orders, so nothing to publish' };
    const story: string[] = [];
    const undone = [...new Set(insertedIds.filter((id) => !orders.includes(id)))];
    if (rollbacks) story.push(`the shop's crash rolled back its open transaction${undone.length ? `, and ${listOf(undone)} with it` : ''} (no order, no message)`);
    if (crashes) story.push(`the checkout was retried and ${listOf(orders)} committed`);
    const by = [...new Set(orders.map((id) => publishers.get(id)!))].join(' and ');
    story.push(`${story.length ? '' : `${listOf(orders)} committed; `}${by} published ${orders.length === 1 ? 'it' : 'each'}`);
    return { held: true, detail: story.join('; ') };
  },
};

/**
 * The customer's side of the checkout: a checkout that returned without an error told the customer
 * their order was placed, so that order must be in the database. Code that never COMMITs, or returns
 * without writing anything, would otherwise pass `nothing-lost` with zero orders.
 */
const confirmedSaved: Invariant = {
  id: 'confirmed-saved',
  title: 'Every order the customer was told about is saved',
  async check(ctx) {
    const confirmed = (ctx.observed.confirmed as unknown[] | undefined) ?? [];
    if (!confirmed.length) return { held: true, detail: 'the checkout never confirmed an order, so nothing was promised' };
    const orders = await committedOrders(ctx);
    const at = ctx.outcome.trace.filter((e) => e.actor === 'shop' && e.type === 'log' && / placed$/.test(e.text));
    for (const [k, id] of confirmed.entries()) {
      const n = typeof id === 'number' || typeof id === 'string' ? Number(id) : Number.NaN;
      const step = at[k]?.i;
      if (Number.isInteger(n) && !orders.includes(n)) {
        return { held: false, detail: `the checkout confirmed order ${n} to the customer, but order ${n} is not in the database (never committed, or rolled back)`, step };
      }
      if (!Number.isInteger(n) && !orders.length) {
        return { held: false, detail: `the checkout returned ${String(id)} without an error, so the customer saw a confirmation, but no order was saved`, step };
      }
    }
    return { held: true, detail: `${confirmed.length === 1 ? 'the confirmed order is' : 'every confirmed order is'} in the database` };
  },
};

const noPhantom: Invariant = {
  id: 'no-phantom',
  title: 'Nothing is published for an order that never committed',
  async check(ctx) {
    const orders = new Set(await committedOrders(ctx));
    const phantom = publishedOrderIds(ctx).find((p) => !orders.has(p.orderId));
    return phantom
      ? { held: false, detail: `"order-placed" for order ${phantom.orderId} was published, but that order is not in the database`, step: phantom.step }
      : { held: true, detail: 'every published order exists' };
  },
};

const atMostOneReceiptPerCommittedOrder: Invariant = {
  id: 'at-most-one-receipt',
  title: 'At most one receipt per order',
  check: (ctx) => atMostOneReceipt.check({ ...ctx, messages: ctx.outcome.ledger.emails.map((e) => ({ id: e.emailId, body: { orderId: e.orderId } })) }),
};

const everyCommittedOrderReceipted: Invariant = {
  id: 'every-order-receipted',
  title: 'Every committed order gets its receipt',
  async check(ctx) {
    const orders = await committedOrders(ctx);
    return everyOrderReceipted.check({ ...ctx, messages: orders.map((orderId) => ({ id: `order-${orderId}`, body: { orderId } })) });
  },
};

const crash = (process: string, when: 'after' | 'before', kind: 'db' | 'queue.publish' | 'queue.ack' | 'email.send', nth?: number): Fault =>
  when === 'after' ? { kind: 'crash', process, after: kind, nth } : { kind: 'crash', process, before: kind, nth };

/** The dual-write demonstration's crash: right after the order row is written, whether or not a transaction is open. */
const CRASH_AFTER_ORDER_INSERT: Fault = { kind: 'crash', process: 'shop', after: 'db', sql: 'INSERT INTO orders', nth: 1 };

export const dualWrite: Scenario = {
  id: 'dual-write',
  title: 'Saved, but never announced',
  entry: 'placeOrder',
  brief: [
    'Placing an order writes twice: the order row in our database, and an "order-placed" message that starts the receipt and everything else. Two systems that fail independently cannot be written atomically.',
    'The starter saves the order and then publishes. The shop crashes between the two: the order exists, and nobody downstream ever hears of it. The customer never saw a confirmation, so once the shop is back the checkout is retried and places the order again — now there are two order rows and only the second is announced. Publishing first is no better: a crash after publish announces an order that was never saved.',
    'Write the message into an outbox table in the same transaction as the order. A relay publishes committed rows afterwards; either both exist or neither does. Here the same crash lands after the order INSERT but before COMMIT, so the new order row is rolled back with the transaction; the retried checkout commits the order and its outbox row together, and the relay publishes that order.',
    'What the outbox does not fix: a crash after COMMIT, before the shop answers, still makes the checkout retry and place a second order, now announced like the first. That duplicate is a different problem, solved the way every other repeat in this course is: a key for the checkout itself (say, a checkout id the browser sends with every attempt), claimed before the order is written.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation:
        'Two separate writes. The crash lands right after the INSERT, which committed on its own, and before publish: order 1 is saved and never announced (lost). The retried checkout saves the purchase again as order 2 and publishes that one, so one purchase leaves two rows, and one of them goes unannounced.',
      code: `import type { Env } from 'effectively-once';

export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const { rows } = await env.db.query<{ id: number }>(
    'INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id',
    [order.customerId, order.totalCents],
  );
  await env.queue.publish('order-placed', { orderId: rows[0].id });   // a second, separate write
  return rows[0].id;
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        "lib's placeOrder: the order row and its outbox row commit in one transaction. The crash lands right after the INSERT of order 1, while that transaction is still open: the connection drops and order 1's row is rolled back, leaving neither row. The retried checkout commits order 2 with its outbox row (the rolled-back INSERT had already used id 1), and relay-1 publishes it and marks the row published. A crash anywhere leaves both rows or neither.",
      code: `import { placeOrder as placeWithOutbox, type Env } from 'effectively-once';

// The order and its "order-placed" message commit together (lib/outbox.ts).
export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  return placeWithOutbox(env.db, order);
}
`,
    },
  },
  build(mod) {
    const place = handlerOf(mod, 'placeOrder') as unknown as (order: typeof ORDER, env: Env) => Promise<unknown>;
    const codeErrors: CodeError[] = [];
    const observed: Record<string, unknown> = {};
    return {
      spec: {
        processes: [shopProcess(place, codeErrors, true, observed), relayProcess('relay-1', libRelayPass, codeErrors, DUAL_WRITE_RELAY_POLLS)],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        horizonMs: 600_000,
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [CRASH_AFTER_ORDER_INSERT],
    story:
      "The shop crashes right after its INSERT INTO orders. In the starter that INSERT has already committed on its own; in the solution it ran inside the open transaction, so the crash rolls the new order row back. The shop restarts 5 s later and the checkout is retried.",
  },
  // The order INSERT is the starter's first statement and the solution's second (after BEGIN): the
  // sql-narrowed crash names that point in both, where 'after db 2' only existed in the solution.
  // The shop crashing right after a publish of its own catches "publish first" and "publish inside
  // the transaction" (a wrong-fix hunt found both passing); the outbox's shop never publishes.
  faultMenu: [
    crash('shop', 'after', 'db', 1),
    CRASH_AFTER_ORDER_INSERT,
    crash('shop', 'before', 'queue.publish'),
    crash('shop', 'after', 'queue.publish'),
    // …and one right after the outbox row, for an outbox row written outside the order's transaction.
    { kind: 'crash', process: 'shop', after: 'db', sql: 'INSERT INTO outbox', nth: 1 },
    crash('relay-1', 'after', 'queue.publish'),
    crash('relay-1', 'after', 'db', 2),
  ],
  maxFaults: 2,
  invariants: [nothingLost, noPhantom, confirmedSaved],
  tables: ['orders', 'outbox'],
  actors: ['shop', 'relay-1', 'postgres', 'queue'],
};

export const relayCrash: Scenario = {
  id: 'relay-crash',
  title: 'The relay that published twice',
  entry: 'handleMessage',
  brief: [
    'The outbox guarantees the message is never lost, not that it goes out once: the relay publishes, then marks the rows published and commits. If the relay crashes between the two, the restarted relay publishes the same rows again.',
    'Here the shop uses the outbox correctly and the relay crashes after publishing, before COMMIT. The starter consumer sends a receipt for every "order-placed" message it receives.',
    'Each half does what it can guarantee: the outbox makes sure nothing is lost, the idempotent consumer makes sure a duplicate is never acted on. Make the consumer idempotent and the whole pipeline is effectively once.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Acts on every delivery: the relay\'s at-least-once republish becomes a second receipt.',
      code: `import type { Env, ReceiptMessage } from 'effectively-once';

// Called for every "order-placed" message the relay published.
export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}
`,
    },
    solution: {
      label: 'Solution',
      explanation: 'The consumer from lib/: a republished message finds its key done and is only acknowledged.',
      code: `import { handleMessage as handleReceipt, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  return handleReceipt(env.db, msg, {
    leaseSeconds: 60,
    sendReceipt: (orderId, { idempotencyKey }) =>
      env.email.send({ to: msg.customer, orderId }, { idempotencyKey }),
  });
}
`,
    },
  },
  build(mod) {
    const handler = handlerOf(mod, 'handleMessage');
    const codeErrors: CodeError[] = [];
    const shop = shopProcess((order, env) => placeOrder(env.db, order), codeErrors);
    const toMessage = (body: unknown) => ({ orderId: Number((body as { body?: { orderId?: unknown } })?.body?.orderId), customer: CUSTOMER_EMAIL });
    return {
      spec: {
        processes: [shop, relayProcess('relay-1', libRelayPass, codeErrors), workerProcess('worker-1', handler, codeErrors, toMessage)],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        // A send gives up after 30 s, inside the handlers' 60 s lease (lib/consumer.ts: a lease longer than the work).
        providers: { timeoutMs: 30_000 },
        horizonMs: 3_600_000,
      },
      observed: {},
      codeErrors,
    };
  },
  demo: { seed: 1, faults: [crash('relay-1', 'after', 'queue.publish')], story: 'relay-1 crashes after publishing the order, before its COMMIT; it restarts and publishes it again.' },
  // The worker crashing right after its claim (db 1) and after a second statement (db 2, a "done"
  // marked before the send) catches done-before-send handlers (a wrong-fix hunt found one passing).
  faultMenu: [
    crash('relay-1', 'after', 'queue.publish'),
    crash('relay-1', 'after', 'db', 3),
    crash('worker-1', 'before', 'queue.ack'),
    crash('worker-1', 'after', 'email.send'),
    crash('worker-1', 'after', 'db', 1),
    crash('worker-1', 'after', 'db', 2),
  ],
  maxFaults: 2,
  invariants: [atMostOneReceiptPerCommittedOrder, everyCommittedOrderReceipted, nothingLost, messagesSettled],
  tables: ['orders', 'outbox', 'operations'],
  actors: ['shop', 'relay-1', 'postgres', 'queue', 'worker-1', 'email'],
};

const OUTBOX_ROWS = 4;

/**
 * Two healthy relays must never both publish a row. A relay that crashes after publishing and
 * before its COMMIT leaves the row unmarked, so it is published again, by design: the outbox
 * promises at-least-once (relay-crash is that lesson, and consumers dedupe). So a second publish
 * counts only when the relay that published the row before it was still alive in between.
 */
const eachRowOnce: Invariant = {
  id: 'each-row-once',
  title: 'Each outbox row is published once (again only after its relay crashed before marking it)',
  check({ outcome }) {
    const publishes = new Map<number, { step: number; by: string }[]>();
    for (const p of outcome.ledger.published) {
      const id = Number((p.body as { orderId?: unknown })?.orderId);
      publishes.set(id, [...(publishes.get(id) ?? []), { step: p.step, by: p.by }]);
    }
    const crashedBetween = (by: string, from: number, to: number) =>
      outcome.trace.some((e) => e.type === 'crash' && e.actor === by && e.i > from && e.i < to);
    const raced: { id: number; count: number; by: string[]; step: number }[] = [];
    const afterCrash = new Set<number>();
    for (const [id, list] of publishes) {
      for (let k = 1; k < list.length; k++) {
        if (crashedBetween(list[k - 1].by, list[k - 1].step, list[k].step)) {
          afterCrash.add(id);
        } else {
          raced.push({ id, count: list.length, by: [...new Set(list.map((p) => p.by))], step: list[k].step });
          break;
        }
      }
    }
    if (raced.length) {
      return {
        held: false,
        detail: raced.map((r) => `order ${r.id} published ${r.count}× — by ${r.by.join(' and ')}, with no crash in between`).join('; '),
        step: raced[0].step,
      };
    }
    const missing = Array.from({ length: OUTBOX_ROWS }, (_, i) => i + 1).filter((id) => !publishes.has(id));
    if (missing.length) return { held: false, detail: `${listOf(missing)} ${missing.length === 1 ? 'was' : 'were'} never published` };
    const again = [...afterCrash];
    return {
      held: true,
      detail: again.length
        ? `all ${OUTBOX_ROWS} rows published; ${listOf(again)} again only because its relay crashed before marking it (at-least-once, by design: consumers dedupe)`
        : `all ${OUTBOX_ROWS} rows published once, split between the relays`,
    };
  },
};

/**
 * What keeps two relays' transactions apart on PostgreSQL: a row-locking read of the outbox
 * (SELECT … FROM outbox … FOR UPDATE or FOR NO KEY UPDATE, SKIP LOCKED or not); an UPDATE of the
 * outbox that re-checks published_at IS NULL (its row locks make a second relay re-check and skip
 * the rows); or an advisory lock taken in the transaction (the relays take turns). A wrong-fix hunt
 * found the last two refused at first: both are right on PostgreSQL.
 */
const LOCKING = [
  /\bfrom\s+outbox\b[\s\S]*\bfor\s+(no\s+key\s+)?update\b/i,
  /\bupdate\s+outbox\b[\s\S]*\bpublished_at\s+is\s+null\b/i,
  /\bpg_advisory_(xact_)?lock\s*\(/i,
];
const locksRows = (sql: string) => LOCKING.some((re) => re.test(sql));

/**
 * A relay that publishes from inside a transaction has locked the rows it read. PGlite runs one
 * transaction at a time, so in this tab a transaction alone keeps two relays apart; on PostgreSQL
 * their transactions overlap, and a plain SELECT in each reads the same unpublished rows. Only a
 * row lock (FOR UPDATE, with SKIP LOCKED to take other rows rather than wait) makes the second
 * relay leave them. Publishing outside a transaction is eachRowOnce's to judge: that race PGlite shows.
 */
const locksWhatItPublishes: Invariant = {
  id: 'locks-what-it-publishes',
  title: 'A relay publishing inside a transaction has locked the rows it read (FOR UPDATE)',
  check({ outcome, db }) {
    const found = firstInTransaction(outcome.trace, (e, tx) => e.type === 'publish' && !tx.statements.some(locksRows));
    if (!found) return { held: true, detail: 'every row published from inside a transaction was locked by the SELECT that read it' };
    const { e } = found;
    const why =
      db.name === 'pglite'
        ? 'Each row went out once in this run only because PGlite runs one transaction at a time: the other relay waited for the COMMIT. On PostgreSQL both transactions run at once, both SELECTs read the same unpublished rows, and both relays publish them. '
        : 'On PostgreSQL two relays\' transactions run at once, and a plain SELECT in each reads the same unpublished rows, so both can publish them. '
    return {
      held: false,
      detail: `${e.actor} published from inside its transaction, but the SELECT that read the rows took no lock (no FOR UPDATE). ${why}Lock what you take: SELECT … FOR UPDATE SKIP LOCKED (an advisory lock, or an UPDATE … WHERE published_at IS NULL before publishing, would do too).`,
      step: e.i,
    };
  },
};

export const relayConcurrency: Scenario = {
  id: 'relay-concurrency',
  title: 'Two relays, one outbox',
  entry: 'relayOnce',
  brief: [
    'One relay is a single point of failure, so you run two. Now both read the same unpublished rows: without coordination each publishes them, and an order can go out twice.',
    'The starter reads unpublished rows, publishes them and marks them, as separate statements. FOR UPDATE SKIP LOCKED inside one transaction lets each relay lock the rows it takes and skip the ones the other holds.',
    'PGlite is a single connection, so here its transactions never overlap: it can show the autocommit race of the starter, but not a lock wait. A transaction without FOR UPDATE would therefore publish each row once in this tab, though on PostgreSQL both relays would read the same rows in their overlapping transactions and publish them twice. So a second invariant checks what PGlite cannot show: a relay that publishes inside a transaction must have locked the rows it read. Run this scenario with the CLI on a real PostgreSQL (--db postgres://…) to watch the relays wait for and skip each other\'s locks.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Read, publish, mark — three autocommit statements. Both relays can read the same rows before either marks them.',
      code: `import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const { rows } = await env.db.query<{ id: number; topic: string; payload: unknown }>(
    'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
  );
  for (const row of rows) await env.queue.publish(row.topic, row.payload);
  if (rows.length) {
    await env.db.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
  }
  return rows;
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        "lib's relayOnce: one transaction, SELECT … FOR UPDATE SKIP LOCKED. A second relay skips rows the first has locked and takes the next ones.",
      code: `import { relayOnce as relayWithLocks, type Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  return relayWithLocks(env.db, (topic, payload) => env.queue.publish(topic, payload), { batchSize: 2 });
}
`,
    },
  },
  build(mod) {
    const pass = handlerOf(mod, 'relayOnce') as unknown as (env: Env) => Promise<unknown>;
    const codeErrors: CodeError[] = [];
    const rows = Array.from({ length: OUTBOX_ROWS }, (_, i) => i + 1);
    return {
      spec: {
        processes: [relayProcess('relay-1', pass, codeErrors), relayProcess('relay-2', pass, codeErrors)],
        messages: [],
        setupSql: `INSERT INTO orders (customer_id, total_cents) SELECT 'cus_' || g, 1000 * g FROM generate_series(1, ${OUTBOX_ROWS}) g;
          INSERT INTO outbox (topic, payload) VALUES ${rows.map((id) => `('order-placed', '{"orderId": ${id}}')`).join(', ')};`,
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        horizonMs: 600_000,
      },
      observed: {},
      codeErrors,
    };
  },
  demo: { seed: 2, faults: [], story: 'No crash at all: two healthy relays poll the same outbox.' },
  // A crash between publish and COMMIT republishes by design (that is relay-crash's lesson), so
  // this menu only crashes relays before they publish: what locking alone must survive.
  faultMenu: [crash('relay-1', 'after', 'db', 1), crash('relay-2', 'after', 'db', 2), crash('relay-1', 'before', 'queue.publish')],
  maxFaults: 1,
  invariants: [eachRowOnce, locksWhatItPublishes],
  tables: ['outbox'],
  actors: ['relay-1', 'relay-2', 'postgres', 'queue'],
};

const WEBHOOK_ORDER = 1042;
const WEBHOOKS = [{ id: 'evt_1', body: { eventId: 'evt_1', type: 'payment_intent.succeeded', orderId: WEBHOOK_ORDER, customer: CUSTOMER_EMAIL } }];

const everyPaymentConfirmed: Invariant = {
  id: 'every-payment-confirmed',
  title: 'Every paid order gets its "payment received" e-mail',
  check({ outcome }) {
    const sent = outcome.ledger.emails.some((e) => e.orderId === WEBHOOK_ORDER && e.template === 'payment-received');
    return sent ? { held: true, detail: `order ${WEBHOOK_ORDER} got its "payment received" e-mail` } : { held: false, detail: `no "payment received" e-mail was ever sent for order ${WEBHOOK_ORDER}` };
  },
};

export const webhookDedupe: Scenario = {
  id: 'webhook-dedupe',
  title: 'The webhook that arrived twice',
  entry: 'handleMessage',
  brief: [
    'Providers deliver webhooks at least once too: after a slow answer, a timeout on their side or a retry policy, the same event arrives again, sometimes while the first delivery is still being handled.',
    'Here the payment provider delivers event evt_1 ("payment succeeded for order 1042") to two handlers at once. The starter sends the "payment received" e-mail every time.',
    'Store each event id with the same claim-and-complete pattern: the key is the event id, so a repeat that finds it done just acknowledges, and one that finds it claimed backs off and comes back later. Pass that key to the e-mail provider too, for a handler that crashes between sending and complete. And keep the lease short, say 60 s: the queue redelivers every 30 s, at most 10 times, and each delivery that finds a crashed handler\'s claim still running can only come back later.',
    'The lab models the webhook endpoint with its queue: returning \'ack\' is your endpoint answering 2xx, \'retry-later\' (or a throw) answering with an error, after which the provider sends the event again. Real providers retry over hours with growing gaps; the 30 s here keeps the demonstration short.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Acts on every delivery of the event.',
      code: `import type { Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' });
  }
  return 'ack';
}
`,
    },
    solution: {
      label: 'Solution',
      explanation: 'claim(opKey("webhook", { eventId })) before acting, complete after: the event id is the dedupe key.',
      code: `import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
`,
    },
  },
  build(mod) {
    const handler = handlerOf(mod, 'handleMessage');
    const codeErrors: CodeError[] = [];
    return {
      spec: {
        processes: [workerProcess('handler-1', handler, codeErrors), workerProcess('handler-2', handler, codeErrors)],
        messages: WEBHOOKS,
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        // A send gives up after 30 s, inside the handlers' 60 s lease (lib/consumer.ts: a lease longer than the work).
        providers: { timeoutMs: 30_000 },
        horizonMs: 3_600_000,
      },
      observed: {},
      codeErrors,
    };
  },
  demo: { seed: 2, faults: [{ kind: 'duplicate-delivery', message: 'evt_1' }], story: 'The provider delivers evt_1 to both handlers at once.' },
  // The crashes after the send are the gap a transaction cannot close: a handler that records the
  // event and sends in one transaction loses the record to the rollback, and the repeat sends again.
  faultMenu: [
    { kind: 'duplicate-delivery', message: 'evt_1' },
    crash('handler-1', 'before', 'queue.ack'),
    crash('handler-2', 'after', 'db', 1),
    crash('handler-1', 'after', 'email.send'),
    crash('handler-2', 'after', 'email.send'),
  ],
  maxFaults: 2,
  invariants: [
    atMostOneEmail([WEBHOOK_ORDER], 'at-most-one-email', 'At most one "payment received" e-mail per order', 'payment-received'),
    everyPaymentConfirmed,
    messagesSettled,
    noEmailInsideTransaction,
  ],
  tables: ['operations'],
  actors: ['queue', 'handler-1', 'handler-2', 'postgres', 'email'],
};

