/**
 * The sending side of the lesson: the dual write and the transactional outbox, a relay that
 * crashes between publish and COMMIT, two relays sharing one outbox, and webhooks delivered more
 * than once. Every committed order must be acted on exactly once, and nothing may be published for
 * an order that never committed.
 */
import { relayOnce } from '../../../lib/outbox';
import type { ProcessSpec } from '../../engine/scheduler';
import { atMostOneReceipt, caughtThrow, codeErrorOf, thrownError, firstInTransaction, everyOrderReceipted, WORKER_RESTART, type CodeError, type Invariant } from './scenario';
import type { Env, Fault, TraceEvent } from '../../engine/types';
import { formatSimMoment } from '../../engine/sim-time';
import { HeldLocks } from './held-locks';
import { withLearnerFunctions } from './learner-functions';
import { answerIgnored, ignoredAnswerBefore } from '../../engine/contention';
import { advisoryLockKeys, type LockKeys } from './advisory-keys';
import { bracketed, executedName, rollsBackToSavepoint, sqlCodeOnly, sqlAsRun } from '../../db/sql-words';
import { preparedStatements } from './prepared';

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

/**
 * What keeps two relays' transactions apart on PostgreSQL, judged on the read the publish follows
 * (the transaction's last statement before it that returned outbox rows: a SELECT from the outbox,
 * or an UPDATE or DELETE of it with RETURNING):
 * - that read locks the rows it returns: FOR UPDATE or FOR NO KEY UPDATE (SKIP LOCKED or not, in a
 *   sub-select too); a DELETE … RETURNING (a row another relay deleted meanwhile is gone when this
 *   one gets it); an UPDATE … RETURNING whose own WHERE re-checks `published_at IS NULL`
 *   (PostgreSQL re-checks that WHERE on the row once the other relay commits, and skips it; a
 *   re-check inside a sub-select is not re-run); or
 * - an advisory lock was taken in the transaction before that read (the relays take turns). A lock
 *   taken after the read comes too late: the second relay waits for it and then publishes the rows
 *   it read before. Reading again under the lock is enough: PostgreSQL makes a transaction's commit
 *   visible before it releases its locks, so a relay that gets the lock next and reads then sees the
 *   first relay's marks (candidates read unlocked, then each one try-locked and re-read before it is
 *   published, is a sound relay). A session-level lock taken before BEGIN and not yet let go
 *   counts as well, and so does LOCK TABLE outbox in a mode that conflicts with itself. A
 *   `pg_try_advisory…` lock counts when its answer decides something: the code read it, or the
 *   call filters rows in the statement's WHERE. A lock keyed on the relay's own name (its process
 *   id in the key, its connection's pg_backend_pid(), its transaction's id), or a shared one (shared locks admit each other), excludes nobody, and does not
 *   count; or
 * - every row that read returned was locked earlier in the same transaction (ids locked FOR UPDATE
 *   SKIP LOCKED, then their payloads fetched by id): they stay this transaction's until it ends.
 * A row-locking statement other than that read (a FOR UPDATE of one row as a gate, then the batch
 * read unlocked; an UPDATE … WHERE published_at IS NULL whose answer is not what is published)
 * leaves the other relay free to read and publish the same rows.
 */
const FOR_UPDATE = /\bfor\s+(no\s+key\s+)?update\b/i;
/** The outbox table, bare or schema-qualified (`public.outbox`, `"public"."outbox"`). */
const OUTBOX = String.raw`(?:"?public"?\s*\.\s*)?"?outbox"?(?![\w"])`;
/** The outbox in a FROM, a JOIN or a FROM list after a comma (`FROM orders, outbox o`): not a column (`outbox.id`). */
const READS_OUTBOX = new RegExp(String.raw`(?:\b(?:from|join)\s+|,\s*)(?:only\s+)?${OUTBOX}(?!\s*\.)`, 'i');
const WRITE_OF_OUTBOX = String.raw`(update\s+(?:only\s+)?${OUTBOX}|delete\s+from\s+(?:only\s+)?${OUTBOX})`;
const WRITES_OUTBOX = new RegExp(String.raw`^\s*${WRITE_OF_OUTBOX}`, 'i');
/** A statement opening with WITH whose common table expression updates or deletes outbox rows (`WITH m AS (UPDATE outbox … RETURNING …) SELECT … FROM m`). */
const CTE_WRITES_OUTBOX = new RegExp(String.raw`^\s*with\b[\s\S]*?\bas\s*(?:(?:not\s+)?materialized\s*)?\(\s*${WRITE_OF_OUTBOX}`, 'i');
const RETURNING = /\breturning\b/i;
/**
 * LOCK TABLE on the outbox in a mode that conflicts with itself (SHARE UPDATE EXCLUSIVE, SHARE ROW
 * EXCLUSIVE, EXCLUSIVE, ACCESS EXCLUSIVE, the default): two relays take turns. ROW SHARE, ROW
 * EXCLUSIVE and SHARE admit each other, and keep nobody out.
 */
const LOCK_TABLE_OUTBOX_EXCLUSIVELY = new RegExp(
  String.raw`^\s*lock\s+(?:table\s+)?(?:only\s+)?(?:[\w."]+\s*,\s*)*${OUTBOX}(?:\s*,\s*[\w."]+)*\s*(?:in\s+(?:share\s+update\s+exclusive|share\s+row\s+exclusive|exclusive|access\s+exclusive)\s+mode\b|(?:nowait\s*)?;?\s*$)`,
  'i',
);

/** `sql` with every parenthesised group that holds a SELECT emptied: what is left is the statement's own clauses. */
function withoutSubqueries(sql: string): string {
  let out = sql;
  for (;;) {
    // Innermost groups first; one without a SELECT is kept, its brackets set aside for the next round.
    const next = out.replace(/\(([^()]*)\)/g, (_group, inner: string) => (/\bselect\b/i.test(inner) ? '\u0001\u0002' : `\u0001${inner}\u0002`));
    if (next === out) break;
    out = next;
  }
  return out.replace(/\u0001/g, '(').replace(/\u0002/g, ')');
}

/**
 * The UPDATE or DELETE of outbox rows `sql` makes: the statement itself, or the body of the
 * common table expression that makes it (the rows the statement returns come from its RETURNING);
 * null when it writes no outbox row.
 */
function outboxWrite(sql: string): string | null {
  if (WRITES_OUTBOX.test(sql)) return sql;
  const cte = CTE_WRITES_OUTBOX.exec(sql);
  if (!cte) return null;
  // The match ends with the write's first words, which hold no bracket: the last one opens the body.
  return bracketed(sql, cte.index + cte[0].lastIndexOf('('));
}


/** Whether `sql` returns outbox rows that a publish may follow. */
function readsOutbox(sql: string): boolean {
  const write = outboxWrite(sql);
  return write !== null ? RETURNING.test(write) : READS_OUTBOX.test(sql);
}

/** `FOR [NO KEY] UPDATE OF a, b`: the tables (or aliases) it names, whose rows alone it locks. */
const FOR_UPDATE_OF = /\bfor\s+(?:no\s+key\s+)?update\s+of\s+((?:"?\w+"?\s*(?:\.\s*"?\w+"?\s*)?,\s*)*"?\w+"?(?:\s*\.\s*"?\w+"?)?)/gi;
/** The outbox in a FROM, a JOIN or a FROM list, with the alias it is given if any. */
const OUTBOX_AS = new RegExp(String.raw`(?:\b(?:from|join)\s+|,\s*)(?:only\s+)?${OUTBOX}(?!\s*\.)(?:\s+(?:as\s+)?(?!(?:where|join|inner|left|right|full|cross|natural|on|using|order|group|limit|offset|for|window|union|returning)\b)"?(\w+)"?)?`, 'gi');

/**
 * Whether the row locks `sql` takes cover the outbox rows it reads: FOR UPDATE with no OF list, or
 * an OF list naming the outbox, its alias, or a subquery (a view, read as its query) that reads the
 * outbox: PostgreSQL locks the rows of the tables underneath a view or subquery named there.
 */
export function rowLockCoversOutbox(sql: string): boolean {
  const lists = [...sql.matchAll(FOR_UPDATE_OF)].map((m) => m[1]!.split(',').map((name) => name.replace(/"/g, '').trim().split(/\s*\.\s*/).pop()!.toLowerCase()));
  if (lists.length === 0) return true;
  const names = new Set(['outbox']);
  for (const m of sql.matchAll(OUTBOX_AS)) if (m[1]) names.add(m[1].toLowerCase());
  for (const name of subqueriesReadingOutbox(sql)) names.add(name);
  return lists.some((list) => list.some((name) => names.has(name)));
}

/** The aliases of the parenthesised subqueries of `sql` that read the outbox (`(SELECT … FROM outbox …) AS pending`). */
function subqueriesReadingOutbox(sql: string): string[] {
  const code = sqlCodeOnly(sql);
  const out: string[] = [];
  for (const m of code.matchAll(/\)\s*(?:as\s+)?(q|[a-z_][\w$]*)\b/gi)) {
    let depth = 0;
    let open = -1;
    for (let i = m.index!; i >= 0; i--) {
      if (code[i] === ')') depth++;
      else if (code[i] === '(' && --depth === 0) {
        open = i;
        break;
      }
    }
    if (open === -1 || !/^\s*select\b/i.test(code.slice(open + 1)) || !new RegExp(String.raw`\b(?:from|join)\s+(?:only\s+)?${OUTBOX}`, 'i').test(code.slice(open + 1, m.index!))) continue;
    // A quoted alias is blanked to `q…` in the code-only text: read it from the statement.
    const alias = m[1] === 'q' && sql[m.index! + m[0].length - 1] === '"' ? (/^"([^"]+)"/.exec(sql.slice(m.index! + m[0].length - 1))?.[1] ?? '') : m[1]!;
    if (alias && !/^(?:where|join|inner|left|right|full|cross|natural|on|using|order|group|limit|offset|for|window|union|returning)$/i.test(alias)) out.push(alias.toLowerCase());
  }
  return out;
}

/** Whether the outbox read `sql` locks the rows it returns (see above). */
function locksWhatItReads(sql: string): boolean {
  if (FOR_UPDATE.test(sql)) return rowLockCoversOutbox(sql);
  const write = outboxWrite(sql);
  if (write === null) return false;
  if (/^\s*delete/i.test(write)) return true;
  // `published_at IS NULL`, or the same written as NOT (published_at IS NOT NULL) or IS NOT DISTINCT FROM NULL.
  // Also written "published_at" IS NULL, published_at ISNULL, NOT published_at IS NOT NULL.
  return /\bwhere\b[\s\S]*(?:\bpublished_at"?\s+is\s+(?:not\s+distinct\s+from\s+)?null\b|\bpublished_at"?\s+isnull\b|\bnot\s*\(?\s*(?:"?\w+"?\s*\.\s*)?"?published_at"?\s+is\s+not\s+null\b)/i.test(withoutSubqueries(write));
}


/** The outbox ids among `rows` (a statement's result); null when a row has none to tell it by. */
function outboxIds(rows: unknown): number[] | null {
  if (!Array.isArray(rows)) return null;
  const ids: number[] = [];
  for (const row of rows as Record<string, unknown>[]) {
    const id = Number(row?.id);
    if (!Number.isInteger(id)) return null;
    ids.push(id);
  }
  return ids;
}

/** Whether the transaction's statements so far (up to a publish by `actor`) keep another relay off what it publishes. */
function relayLocked(tx: { events: readonly TraceEvent[]; before: readonly TraceEvent[] }, publish: TraceEvent, prepared: ReadonlyMap<string, string>, lockKeys: LockKeys): boolean {
  const actor = publish.actor;
  // A session lock taken before BEGIN and still held keeps the other relays out for the whole transaction.
  const held = new HeldLocks(actor, LOCK_TABLE_OUTBOX_EXCLUSIVELY, lockKeys);
  for (const e of tx.before) held.see(e);
  held.inTransaction = false;
  /** Outbox rows this transaction has locked so far (FOR UPDATE, DELETE or a guarded UPDATE … RETURNING), each with the position it was locked at. */
  const lockedRows = new Map<number, number>();
  /** Where the latest SAVEPOINT was set, and the latest covered read made: ROLLBACK TO SAVEPOINT releases the row locks taken since. */
  let savepointAt = -1;
  let coveredAt = -1;
  let position = 0;
  /** Whether the latest read of the outbox was covered; null before any read. */
  let lastReadCovered: boolean | null = null;
  /** Whether a read locked rows without saying which (no id among its columns, a cursor): which rows are locked is then unknown. */
  let lockedUnknown = false;
  /** Whether a lock that keeps the other relays out (advisory, LOCK TABLE) was held at the latest read. */
  let lastReadUnderLock = false;
  for (const e of tx.events) {
    const data = e.data as { sql?: unknown; rows?: unknown } | undefined;
    const text = String(data?.sql ?? '');
    const executing = executedName(text);
    // A query in WITH that nothing reads never runs: its FOR UPDATE locks nothing.
    const sql = sqlAsRun(executing !== null ? (prepared.get(executing) ?? text) : text);
    held.see(e);
    position++;
    if (/^\s*savepoint\b/i.test(sqlCodeOnly(sql))) savepointAt = position;
    if (rollsBackToSavepoint(sql) && savepointAt >= 0) {
      for (const [id, at] of lockedRows) if (at > savepointAt) lockedRows.delete(id);
      if (lastReadCovered === true && coveredAt > savepointAt && !held.any) lastReadCovered = false;
    }
    if (!readsOutbox(sql)) continue;
    const ids = outboxIds(data?.rows);
    lastReadUnderLock = held.any;
    // A SKIP LOCKED read whose rows the relay did not go by (it did the same when they were all
    // another relay's, ../../engine/contention.ts) kept nobody off what it published.
    if (locksWhatItReads(sql) && !answerIgnored(e)) {
      for (const id of ids ?? []) lockedRows.set(id, position);
      // A cursor's DECLARE returns nothing: its rows are locked as they are fetched.
      if (ids === null || /^\s*declare\b/i.test(sqlCodeOnly(sql))) lockedUnknown = true;
      lastReadCovered = true;
      coveredAt = position;
    } else {
      // Rows this transaction locked before, read again by id, are still its own until COMMIT.
      lastReadCovered = held.any || (ids !== null && ids.length > 0 && ids.every((id) => lockedRows.has(id)));
    }
  }
  if (lastReadCovered === null) return held.any;
  if (!lastReadCovered || lastReadUnderLock) return lastReadCovered;
  // Covered by row locks: the row published must be one of them. A locked read that only reserves
  // a share, and then the rows of an earlier unlocked read published, keeps nobody off those.
  const published = Number((publish.data as { body?: { orderId?: unknown } } | undefined)?.body?.orderId);
  return !Number.isInteger(published) || lockedUnknown || lockedRows.has(published);
}

/**
 * A relay that publishes from inside a transaction has locked the rows it read. PGlite runs one
 * transaction at a time, so in this tab a transaction alone keeps two relays apart; on PostgreSQL
 * their transactions overlap, and a plain SELECT in each reads the same unpublished rows. Only a
 * row lock (FOR UPDATE, with SKIP LOCKED to take other rows rather than wait) makes the second
 * relay leave them. Publishing outside a transaction is eachRowOnce's to judge: that race PGlite shows.
 */
export const locksWhatItPublishes: Invariant = {
  id: 'locks-what-it-publishes',
  title: 'A relay publishing inside a transaction has locked the rows it read (FOR UPDATE)',
  async check({ outcome, db }) {
    const trace = await withLearnerFunctions(outcome.trace, db);
    const prepared = await preparedStatements(trace, db);
    const lockKeys = await advisoryLockKeys(trace, db);
    const found = firstInTransaction(trace, (e, tx) => e.type === 'publish' && !relayLocked(tx, e, prepared, lockKeys));
    if (!found) return { held: true, detail: 'every row published from inside a transaction was locked before or as it was read' };
    const { e } = found;
    const ignored = ignoredAnswerBefore(outcome.trace, e)
      ? 'Its lock did not count: replayed with the answer a lock held by the other relay gives (false, or no rows), it published the same rows all the same. '
      : '';
    const why =
      db.name === 'pglite'
        ? 'Each row went out once in this run only because PGlite runs one transaction at a time: the other relay waited for the COMMIT. On PostgreSQL both transactions run at once, both SELECTs read the same unpublished rows, and both relays publish them. '
        : 'On PostgreSQL two relays\' transactions run at once, and a plain SELECT in each reads the same unpublished rows, so both can publish them. '
    return {
      held: false,
      detail: `${e.actor} published from inside its transaction, but nothing locked the rows it published before or as it read them (no FOR UPDATE on the read it published from; a lock on another statement, an advisory lock taken after the read, shared, or keyed on the relay's own name, or a try-lock whose answer was never looked at, does not keep the other relay out). ${ignored}${why}Lock what you take: SELECT … FOR UPDATE SKIP LOCKED (an advisory lock every relay takes before the read, or an UPDATE … WHERE published_at IS NULL … RETURNING whose rows are the ones you publish, would do too).`,
      step: e.i,
    };
  },
};

export const WEBHOOK_ORDER = 1042;
export const WEBHOOKS = [{ id: 'evt_1', body: { eventId: 'evt_1', type: 'payment_intent.succeeded', orderId: WEBHOOK_ORDER, customer: CUSTOMER_EMAIL } }];
/** Whether a run with `seed` plays the fuller payment provider (odd seeds): webhooksFor, and a `deliveryAttempt` on each delivery. */
export function fullerProviderOn(seed: number | undefined): seed is number {
  return seed !== undefined && seed % 2 === 1;
}

/**
 * The webhooks of a run with `seed`. On odd seeds the provider first sends the payment's "created"
 * event for the same order, as real providers do (the demonstration's seed is even): a key on the
 * order alone then takes the "succeeded" event for a repeat of it. On seeds 1, 5, 9, … the customer
 * also pays the order in two instalments: a second "succeeded" event (evt_2) for the same order, a
 * payment of its own that gets its own e-mail, so a key on the event's type and order drops it.
 */
export function webhooksFor(seed: number | undefined): typeof WEBHOOKS {
  if (!fullerProviderOn(seed)) return WEBHOOKS;
  const created = { id: 'evt_0', body: { eventId: 'evt_0', type: 'payment_intent.created', orderId: WEBHOOK_ORDER, customer: CUSTOMER_EMAIL } };
  const instalment = { id: 'evt_2', body: { eventId: 'evt_2', type: 'payment_intent.succeeded', orderId: WEBHOOK_ORDER, customer: CUSTOMER_EMAIL } };
  return seed % 4 === 1 ? [created, ...WEBHOOKS, instalment] : [created, ...WEBHOOKS];
}

/** The payments ("succeeded" events) the provider sends for `orderId` in this run. */
function paymentsOf(messages: readonly { body: unknown }[], orderId: number): number {
  return messages.filter((m) => {
    const b = m.body as { type?: unknown; orderId?: unknown };
    return b.type === 'payment_intent.succeeded' && b.orderId === orderId;
  }).length;
}

/** One "payment received" e-mail per payment of the order, never more. */
export const onePaymentEmailPerPayment: Invariant = {
  id: 'at-most-one-email',
  title: 'At most one "payment received" e-mail per payment',
  check({ outcome, messages }) {
    const payments = paymentsOf(messages, WEBHOOK_ORDER);
    const sent = outcome.ledger.emails.filter((e) => e.orderId === WEBHOOK_ORDER && e.template === 'payment-received');
    if (sent.length > payments) {
      return {
        held: false,
        detail: `order ${WEBHOOK_ORDER} got ${sent.length} "payment received" e-mails for ${payments === 1 ? 'one payment' : `${payments} payments`}: ${sent.map((e) => `${e.emailId} by ${e.by} at ${formatSimMoment(e.atMs)}`).join(', ')}`,
        step: sent[payments]!.step,
      };
    }
    return { held: true, detail: `${sent.length} "payment received" e-mail${sent.length === 1 ? '' : 's'} for ${payments === 1 ? 'one payment' : `${payments} payments`}` };
  },
};

export const everyPaymentConfirmed: Invariant = {
  id: 'every-payment-confirmed',
  title: 'Every payment gets its "payment received" e-mail',
  check({ outcome, messages }) {
    const payments = paymentsOf(messages, WEBHOOK_ORDER);
    const sent = outcome.ledger.emails.filter((e) => e.orderId === WEBHOOK_ORDER && e.template === 'payment-received').length;
    if (sent >= payments) return { held: true, detail: payments === 1 ? `order ${WEBHOOK_ORDER} got its "payment received" e-mail` : `order ${WEBHOOK_ORDER} got an e-mail for each of its ${payments} payments` };
    return {
      held: false,
      detail:
        sent === 0
          ? `no "payment received" e-mail was ever sent for order ${WEBHOOK_ORDER}`
          : `order ${WEBHOOK_ORDER} was paid in ${payments} payments (evt_1 and evt_2) but got ${sent} "payment received" e-mail: one payment went unconfirmed`,
    };
  },
};

