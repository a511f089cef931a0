/**
 * The systematic part of an exploration: every placement of the lesson's faults, so that a wrong
 * fix is caught by design rather than by the luck of 200 random draws.
 *
 * A fault menu names the faults a lesson's design must survive at one moment each ("crash worker-1
 * after its first statement"). The same fault at another moment is the same kind of fault: a crash
 * after the claim's *second* statement, the *second* call's lost response, a duplicate delivery
 * handed over *later*. So each menu entry is varied over its position (the `nth` step or call of
 * its kind, or the step from which a duplicate is handed over), and the placements are tried alone
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
/** Steps from which a duplicate delivery may be handed over (none: as soon as a consumer holds the message). */
const DUPLICATE_FROM_STEPS = [undefined, 3, 6, 9, 12, 16, 20, 25];

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
    case 'duplicate-delivery':
      return [f, ...DUPLICATE_FROM_STEPS.map((atStep) => (atStep === undefined ? { kind: f.kind, message: f.message } : { kind: f.kind, message: f.message, atStep }))];
  }
}

/** A fault's identity, with `nth: 1` and no `nth` the same. */
function keyOf(f: Fault): string {
  const o = { ...f } as Record<string, unknown>;
  if (o.nth === 1) delete o.nth;
  return JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
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
  scenario.faultMenu.forEach((entry, e) => {
    placements(entry).forEach((fault, rank) => {
      const k = keyOf(fault);
      if (seen.has(k)) return;
      seen.add(k);
      singles.push({ fault, entry: e, rank });
    });
  });
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
