/**
 * The systematic part of an exploration: every placement of the lesson's faults, so that a wrong
 * fix is caught by design rather than by the luck of 200 random draws.
 *
 * A fault menu names the faults a lesson's design must survive at one moment each ("crash worker-1
 * after its first statement"). The same fault at another moment is the same kind of fault: a crash
 * after the claim's *second* statement, the *second* call's lost response, a duplicate delivery
 * handed over *later*. So each menu entry is varied over its position (the `nth` step or call of
 * its kind, or the step or the moment from which a duplicate is handed over), and the placements are tried alone
 * and then in pairs (DSLabs-style bounded search over a small fault space). The first
 * `systematicPlans(scenario).length` seeds of an exploration take these plans in order, and later
 * seeds draw theirs at random (`drawFaults`); every seed still chooses its own interleaving.
 */
import type { Fault } from '../engine/types';

/** The scenario's part this needs. */
interface Menu {
  faultMenu: readonly Fault[];
  maxFaults: number;
}

/** Most systematic plans per lesson: the rest of an exploration is random. */
export const SYSTEMATIC_MAX = 100;

/** Positions each positional fault is tried at: the 1st to 4th step or call of its kind. */
const NTHS = [1, 2, 3, 4];
/**
 * Where a duplicate delivery may be placed, alternating two axes: the scheduler step from which it
 * is handed over (none: as soon as a consumer holds the message), and the moment after the
 * message's first delivery, in simulated ms. Steps reach the interleavings of one handling; moments
 * reach what a step count cannot: a repeat while a slow call is still out (15 s, 2 s), after a
 * visibility timeout (45 s), after the 60 s leases the lessons advise (65 s, 95 s) — by then the
 * message may be acknowledged, and comes back as a copy the queue failed to delete.
 */
const DUPLICATE_PLACEMENTS: readonly ({ atStep?: number; afterMs?: number })[] = [
  {},
  { afterMs: 15_000 },
  { atStep: 3 },
  { afterMs: 65_000 },
  { atStep: 6 },
  { afterMs: 2_000 },
  { atStep: 9 },
  { afterMs: 45_000 },
  { atStep: 12 },
  { afterMs: 95_000 },
  { atStep: 16 },
  { atStep: 20 },
  { atStep: 25 },
];

/** Items of a batch a refusal is placed at: the first, the middle ones, the last the provider answers. */
const REFUSED_ITEMS = [0, 1, 3, 5, 7];

/** Step kinds that are provider calls (`email.send`, `payments.charge`), not the database's or the queue's. */
const PROVIDER_CALL = /^(?!queue\.)[a-z]+\.[a-z]+$/i;

/** The placements of one menu entry, the entry itself first. */
function placements(f: Fault): Fault[] {
  switch (f.kind) {
    case 'crash': {
      // A crash next to a provider call is where an effect may have happened unseen: lessons place
      // those with care (a crash after a charge went through is beyond what some designs promise,
      // and their briefs say so), so they stay where the menu puts them.
      const at = 'after' in f ? f.after : 'before' in f ? f.before : null;
      if (at === null || PROVIDER_CALL.test(at)) return [f];
      return [f, ...NTHS.map((nth) => ({ ...f, nth }))];
    }
    case 'lose-response':
    case 'lose-request':
    case 'slow-response':
      return [f, ...NTHS.slice(0, 3).map((nth) => ({ ...f, nth }))];
    case 'fail-statement':
      return [f, ...NTHS.map((nth) => ({ ...f, nth }))];
    case 'refuse-item':
      // Every item of the first calls' batches, the first items first.
      return [f, ...NTHS.slice(0, 2).flatMap((nth) => REFUSED_ITEMS.map((item) => ({ ...f, nth, item })))];
    case 'duplicate-delivery':
      return [f, ...DUPLICATE_PLACEMENTS.map((at) => ({ kind: f.kind, message: f.message, ...at }))];
  }
}

/** A fault's identity, with `nth: 1`, `nth: undefined` and no `nth` the same. */
function keyOf(f: Fault): string {
  const o = { ...f } as Record<string, unknown>;
  if (o.nth === 1) delete o.nth;
  return JSON.stringify(Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => [k, o[k]]));
}

const memo = new WeakMap<readonly Fault[], Fault[][]>();

/**
 * The systematic plans of `scenario`, in the order seeds take them: each placement alone, then
 * pairs of placements of two different menu entries (when the lesson allows two faults), the
 * placements nearest the menu's own first; at most SYSTEMATIC_MAX.
 */
export function systematicPlans(scenario: Menu): readonly Fault[][] {
  const hit = memo.get(scenario.faultMenu);
  if (hit) return hit;
  const seen = new Set<string>();
  const singles: { fault: Fault; entry: number; rank: number }[] = [];
  const all = scenario.faultMenu.flatMap((entry, e) => placements(entry).map((fault, rank) => ({ fault, entry: e, rank })));
  // A placement that is also another entry of the menu (a duplicate the menu places at a moment
  // itself) keeps that entry's rank: the menu's own moments are tried first, in pairs too.
  for (const p of all.filter((x) => x.rank === 0).concat(all.filter((x) => x.rank > 0))) {
    const k = keyOf(p.fault);
    if (seen.has(k)) continue;
    seen.add(k);
    singles.push(p);
  }
  const plans: Fault[][] = singles.map((s) => [s.fault]);
  if (scenario.maxFaults >= 2) {
    const pairs: { plan: Fault[]; order: number }[] = [];
    for (let i = 0; i < singles.length; i++) {
      for (let j = i + 1; j < singles.length; j++) {
        if (singles[i]!.entry === singles[j]!.entry) continue;
        pairs.push({ plan: [singles[i]!.fault, singles[j]!.fault], order: singles[i]!.rank + singles[j]!.rank });
      }
    }
    // Stable: among pairs equally far from the menu's own moments, the menu's order.
    pairs.sort((a, b) => a.order - b.order);
    for (const p of pairs) plans.push(p.plan);
  }
  const capped = plans.slice(0, SYSTEMATIC_MAX);
  memo.set(scenario.faultMenu, capped);
  return capped;
}
