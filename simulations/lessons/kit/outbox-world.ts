/**
 * The sending side of the lesson: the dual write and the transactional outbox, a relay that
 * crashes between publish and COMMIT, and two relays sharing one outbox (what keeps them apart:
 * ./relay-locks.ts). Every committed order must be acted on exactly once, and nothing may be
 * published for an order that never committed.
 */
import { relayOnce } from '../../../lib/outbox';
import type { ProcessSpec } from '../../engine/scheduler';
import { atMostOneReceipt, caughtThrow, codeErrorOf, thrownError, everyOrderReceipted, WORKER_RESTART, type CodeError, type Invariant } from './scenario';
import type { Env, Fault } from '../../engine/types';

export const ORDER = { customerId: 'cus_ada', totalCents: 4999 };
/** The same customer's next order, where a world places two. */
export const NEXT_ORDER = { customerId: 'cus_ada', totalCents: 1250 };
export const CUSTOMER_EMAIL = 'ada@example.com';

/** Passes a relay makes per incarnation, one every `RELAY_INTERVAL_MS`. */
const RELAY_POLLS = 5;
const RELAY_INTERVAL_MS = 2_000;
/**
 * In dual-write the shop may crash twice and retry after each restart (5 s apiece), so its
 * relay polls for 20 s: a row committed by the last retry is still published.
 */
export const DUAL_WRITE_RELAY_POLLS = 10;

/**
 * After its regular passes a relay makes a few more, sparse, as a relay that polls on would: the
 * first this long after its last regular pass, past the 60 s lease a crashed relay's claim on a
 * row may hold; the next this long after that, past a claim of several minutes. Each wait is from
 * the pass before.
 */
const RELAY_LATE_PASSES_MS = [75_000, 360_000];

/** A relay that calls `pass(env)` every 2 s, `polls` times per incarnation, then at each of `RELAY_LATE_PASSES_MS`; a crash restarts it. */
export function relayProcess(id: string, pass: (env: Env) => Promise<unknown>, codeErrors: CodeError[], polls = RELAY_POLLS): ProcessSpec {
  const onePass = async (env: Env) => {
    try {
      await pass(env);
    } catch (err) {
      const { said } = caughtThrow(err);
      codeErrors.push(thrownError(id, err));
      env.log(`relay pass failed: ${said}; the rows stay unpublished`);
    }
  };
  return {
    id,
    producer: true,
    restart: WORKER_RESTART,
    async main(env) {
      for (let poll = 0; poll < polls; poll++) {
        await onePass(env);
        await env.sleep(RELAY_INTERVAL_MS);
      }
      for (const wait of RELAY_LATE_PASSES_MS) {
        await env.sleep(wait);
        await onePass(env);
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
export function shopProcess(
  place: (order: typeof ORDER, env: Env) => Promise<unknown>,
  codeErrors: CodeError[],
  retryAfterCrash = false,
  observed: Record<string, unknown> = {},
  /** Whether `place` is the learner's code; lib's failed statements are not theirs to see. */
  learnerPlaces = true,
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
        const { said } = caughtThrow(err);
        const recorded = codeErrorOf('shop', err, learnerPlaces);
        if (recorded) codeErrors.push(recorded);
        env.log(`placing the order failed: ${said}`);
      }
    },
  };
}

/** The lib relay, publishing each row's payload under its topic. */
export const libRelayPass = (env: Env) => relayOnce(env.db, (topic, payload) => env.queue.publish(topic, payload));

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

export const nothingLost: Invariant = {
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
export const confirmedSaved: Invariant = {
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

export const noPhantom: Invariant = {
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

export const atMostOneReceiptPerCommittedOrder: Invariant = {
  id: 'at-most-one-receipt',
  title: 'At most one receipt per order',
  check: (ctx) => atMostOneReceipt.check({ ...ctx, messages: ctx.outcome.ledger.emails.map((e) => ({ id: e.emailId, body: { orderId: e.orderId } })) }),
};

export const everyCommittedOrderReceipted: Invariant = {
  id: 'every-order-receipted',
  title: 'Every committed order gets its receipt',
  async check(ctx) {
    const orders = await committedOrders(ctx);
    return everyOrderReceipted.check({ ...ctx, messages: orders.map((orderId) => ({ id: `order-${orderId}`, body: { orderId } })) });
  },
};

export const crash = (process: string, when: 'after' | 'before', kind: 'db' | 'queue.publish' | 'queue.ack' | 'email.send', nth?: number): Fault =>
  when === 'after' ? { kind: 'crash', process, after: kind, nth } : { kind: 'crash', process, before: kind, nth };

/** The dual-write demonstration's crash: right after the order row is written, whether or not a transaction is open. */
export const CRASH_AFTER_ORDER_INSERT: Fault = { kind: 'crash', process: 'shop', after: 'db', sql: 'INSERT INTO orders', nth: 1 };

export const OUTBOX_ROWS = 4;

/**
 * Two healthy relays must never both publish a row. A relay that crashes after publishing and
 * before its COMMIT leaves the row unmarked, so it is published again, by design: the outbox
 * promises at-least-once (relay-crash is that lesson, and consumers dedupe). So a second publish
 * counts only when the relay that published the row before it was still alive in between.
 */
export const eachRowOnce: Invariant = {
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
