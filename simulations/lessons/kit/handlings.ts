/**
 * Who handled which delivery when, and the values statements passed: what the checker of
 * overlapping transactions (./overlap.ts) asks of a trace before it walks its transactions.
 */
import type { TraceEvent } from '../../engine/types';

/**
 * A statement's parameter values, as text: what ties a write to a later read of the same rows (a
 * claim of key k, then a read of k). Null when unknown (no parameters, or an EXECUTE whose
 * arguments are in its text): then any two statements on the same table are taken to meet.
 */
export type Values = ReadonlySet<string> | null;

export function valuesOf(data: { params?: unknown } | undefined): Values {
  const params = Array.isArray(data?.params) ? data.params : [];
  const out = new Set<string>();
  for (const p of params) if (p !== null && p !== undefined && typeof p !== 'object') out.add(String(p));
  return out.size ? out : null;
}

/** Whether two statements' values may name the same rows. */
export function meet(a: Values, b: Values): boolean {
  if (a === null || b === null) return true;
  for (const v of a) if (b.has(v)) return true;
  return false;
}

/** Whether every value of `a` is one of `b`'s: a row named by `a` is one `b` names too, no value of its own beside them. */
export function within(a: Values, b: Values): boolean {
  if (a === null || b === null) return true;
  for (const v of a) if (!b.has(v)) return false;
  return true;
}

export function union(a: Values | undefined, b: Values): Values {
  if (a === undefined) return b;
  if (a === null || b === null) return null;
  return new Set([...a, ...b]);
}

/** One process's handling of one delivery: from the queue handing it over to its ack, its crash or its next delivery. */
export interface Handling {
  process: string;
  message: string;
  from: number;
  to: number;
  /** The delivery's message id and the plain values of its body: what every handling of the message shares. */
  delivered: ReadonlySet<string>;
}

/** The message id and every string or number in the body of a delivery (`Delivery`), nested ones too. */
function deliveredValues(data: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, depth: number) => {
    if (v === null || v === undefined || depth > 4) return;
    if (typeof v === 'object') for (const x of Object.values(v as Record<string, unknown>)) walk(x, depth + 1);
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') out.add(String(v));
  };
  const d = data as { messageId?: unknown; body?: unknown } | undefined;
  walk(d?.messageId, 0);
  walk(d?.body, 0);
  return out;
}

/**
 * A random UUID (version 4, as gen_random_uuid() and `env.random.uuid()` give them): one a process
 * drew for itself. A name-based one (versions 3 and 5) is the same for everyone naming the same thing.
 */
export const RANDOM_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * Which processes each key of `trace`'s statements belongs to (`keysOf` names a statement's keys),
 * gathered on the first question only: whether a process other than `actor` has `key`.
 */
export function othersHave(trace: readonly TraceEvent[], keysOf: (e: TraceEvent) => Iterable<string>): (key: string, actor: string) => boolean {
  let index: Map<string, Set<string>> | null = null;
  const gather = () => {
    const found = new Map<string, Set<string>>();
    for (const e of trace) if (e.type === 'db') for (const k of keysOf(e)) found.set(k, (found.get(k) ?? new Set()).add(e.actor));
    return found;
  };
  return (key, actor) => [...((index ??= gather()).get(key) ?? [])].some((a) => a !== actor);
}

/** Whether a process other than `actor` passed `value` to a statement somewhere in `trace`. */
export function valueUsers(trace: readonly TraceEvent[]): (value: string, actor: string) => boolean {
  return othersHave(trace, (e) => valuesOf(e.data as { params?: unknown }) ?? []);
}

/** A statement's text and parameters: the same key for the same statement run alike. */
function textAndParams(e: TraceEvent): string {
  const data = e.data as { sql?: unknown; params?: unknown } | undefined;
  return `${String(data?.sql ?? '')}\0${JSON.stringify(data?.params ?? [])}`;
}

/** Whether a returned row says yes: some value in it not null, false or 0 (a function answering null or false took nothing). */
export function saysYes(row: Record<string, unknown> | null | undefined): boolean {
  return Object.values(row ?? {}).some((v) => v !== null && v !== false && v !== undefined && v !== 0);
}

/** Every handling of a delivery in `trace`. */
export function handlingsOf(trace: readonly TraceEvent[]): Handling[] {
  const all: Handling[] = [];
  const current = new Map<string, Handling>();
  const end = (process: string, at: number) => {
    const h = current.get(process);
    if (h) h.to = at;
    current.delete(process);
  };
  for (const e of trace) {
    if (e.type === 'receive' && e.target) {
      end(e.target, e.i);
      const message = (e.data as { messageId?: unknown } | undefined)?.messageId;
      if (typeof message !== 'string') continue;
      const h = { process: e.target, message, from: e.i, to: trace.length, delivered: deliveredValues(e.data) };
      all.push(h);
      current.set(e.target, h);
    } else if (e.type === 'ack' || e.type === 'crash' || e.type === 'restart' || e.type === 'finish') {
      end(e.actor, e.i);
    }
  }
  return all;
}

/**
 * Whether a process other than the statement's own ran the same statement with the same
 * parameters (or, `alike: 'text'`, the same text) somewhere in `trace`: a row it locks is then one every worker locks (a gate, a
 * mutex row), not a row of the worker's own.
 */
export function ranByOthers(trace: readonly TraceEvent[], alike: 'text and parameters' | 'text' = 'text and parameters'): (e: TraceEvent) => boolean {
  // Among the handlings of one message (a worker handling another order locks that order's row);
  // a process that takes no deliveries (a relay) is compared with every other.
  const handlings = handlingsOf(trace);
  const messageAt = (e: TraceEvent) => handlings.find((h) => h.process === e.actor && h.from <= e.i && e.i < h.to)?.message ?? '';
  const keyOf = (e: TraceEvent) => `${messageAt(e)}\0${alike === 'text' ? String((e.data as { sql?: unknown } | undefined)?.sql ?? '') : textAndParams(e)}`;
  const others = othersHave(trace, (e) => [keyOf(e)]);
  return (e) => others(keyOf(e), e.actor);
}

/**
 * Whether a process other than `actor` passed `value` to a statement on `table` (reading or
 * writing it) somewhere in `trace`: a row named by values the others use there too is their row
 * as well, not one of the worker's own (its slot, its attempt). `tablesOf` says which tables a
 * statement's text reads and writes.
 */
export function valueUsersIn(trace: readonly TraceEvent[], tablesOf: (sql: string) => readonly string[]): (value: string, table: string, actor: string) => boolean {
  const others = othersHave(trace, (e) => {
    const data = e.data as { sql?: unknown; params?: unknown } | undefined;
    const values = [...(valuesOf(data) ?? [])];
    return tablesOf(String(data?.sql ?? '')).flatMap((t) => values.map((v) => `${t}\0${v}`));
  });
  return (value, table, actor) => others(`${table}\0${value}`, actor);
}

/**
 * Whether a process other than `e`'s ran `e`'s statement with the same parameters after it and
 * before `e`'s process acted (called a provider or published) or event `until`, got rows back (a
 * row with a value in it) or changed some as well, and then went on as `e`'s process did (its next
 * statement the same, or the same call): a statement every caller wins and passes (a delivery
 * counter bumped, a row upserted whatever it held) took nothing the others could not take. A loser
 * told apart by its answer (a row saying "running", a verdict word) goes another way; a win after
 * the process acted took nothing it relied on.
 */
export function wonByOthersAfter(trace: readonly TraceEvent[]): (e: TraceEvent, until: number) => boolean {
  let index: Map<string, TraceEvent[]> | null = null;
  const won = (e: TraceEvent) => {
    const data = e.data as { rows?: unknown; affected?: unknown; waitingFor?: unknown } | undefined;
    if (data?.waitingFor !== undefined) return false;
    if (Array.isArray(data?.rows) && data.rows.length > 0) return (data.rows as Record<string, unknown>[]).some(saysYes);
    return typeof data?.affected === 'number' && data.affected > 0;
  };
  const gather = () => {
    const found = new Map<string, TraceEvent[]>();
    for (const e of trace) if (e.type === 'db' && won(e)) found.set(textAndParams(e), [...(found.get(textAndParams(e)) ?? []), e]);
    return found;
  };
  const actsAfter = (e: TraceEvent, until: number) => {
    for (let i = e.i + 1; i < until && i < trace.length; i++) {
      const x = trace[i]!;
      if (x.actor === e.actor && (x.type === 'call' || x.type === 'publish')) return i;
    }
    return until;
  };
  /** What `e`'s process did next: its next statement's text, call, publish or ack; null when its handling ended first. */
  const nextStep = (e: TraceEvent): string | null => {
    for (let i = e.i + 1; i < trace.length; i++) {
      const x = trace[i]!;
      if (x.type === 'receive' && x.target === e.actor) return null;
      if (x.actor !== e.actor) continue;
      if (x.type === 'db' || x.type === 'db-error') {
        const data = x.data as { sql?: unknown; waitingFor?: unknown } | undefined;
        if (data?.waitingFor === undefined) return `db\n${String(data?.sql ?? '')}`;
      } else if (x.type === 'call') return `call\n${x.call ?? ''}`;
      else if (x.type === 'publish' || x.type === 'ack' || x.type === 'crash' || x.type === 'finish') return x.type;
    }
    return null;
  };
  return (e, until) => {
    const others = ((index ??= gather()).get(textAndParams(e)) ?? []).filter((o) => o.actor !== e.actor && o.i > e.i && o.i < until);
    if (others.length === 0) return false;
    const acted = actsAfter(e, until);
    const mine = nextStep(e);
    return mine !== null && others.some((o) => o.i < acted && nextStep(o) === mine);
  };
}
