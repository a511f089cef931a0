/**
 * The lessons' hint ladders: every lesson has one, every invariant of a lesson has a hint, every
 * fault-specific hint can fire (its shape matches a fault of the lesson's menu), the most specific
 * hint is chosen, and — from the judge's exam — every invariant a wrong fix breaks in the tab's
 * engine has a targeted hint in that lesson's ladder. What each wrong fix breaks is recorded in
 * tests/fixtures/judge-breaks.json (scripts/judge-breaks.ts says how to record it again), so this
 * test explores nothing; it fails when the record no longer matches the exam.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { sha256Hex } from '../lib/op-key';
import { readCorpus } from '../scripts/judge-corpus';
import { JUDGE_BREAKS_FILE, type JudgeBreak } from '../scripts/judge-breaks';
import { faultMatches, NUDGE_ID, SOLUTION_ID, targetedHint } from '../simulations/course/hints';
import type { LessonHints } from '../simulations/lessons/catalog-types';
import { hintsFor } from '../simulations/lessons/hints';
import { LESSONS, lessonById } from '../simulations/lessons/index';
import { drawFaults } from '../simulations/run/run';

const RECORD = JSON.parse(readFileSync(JUDGE_BREAKS_FILE, 'utf8')) as JudgeBreak[];
const RERECORD = 'record again: see scripts/judge-breaks.ts';

/** Invariants of `breaks` that `hints` has no targeted hint for, as "file: invariant". */
function uncovered(hints: LessonHints, breaks: readonly JudgeBreak[]): string[] {
  return breaks.flatMap((b) => b.invariants.filter((inv) => !targetedHint(hints, { invariant: inv, faults: [] })).map((inv) => `${b.file}: ${inv}`));
}

describe.each(LESSONS.map((l) => [l.id, l] as const))('%s', (id, lesson) => {
  const hints = hintsFor(id)!;

  test('has a ladder: a nudge, and a general hint for every invariant of the lesson', () => {
    expect(hints, 'hints.generated.ts is stale: npm run gen').toEqual(lesson.hints);
    expect(hints.nudge.length).toBeGreaterThan(60);
    const general = new Set(hints.targeted.filter((h) => !h.fault).map((h) => h.invariant));
    expect(lesson.invariants.map((i) => i.id).filter((inv) => !general.has(inv))).toEqual([]);
  });

  test('every hint names an invariant of the lesson, has its own id and a fault shape that can happen', () => {
    const invariants = new Set(lesson.invariants.map((i) => i.id));
    const ids = hints.targeted.map((h) => h.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const h of hints.targeted) {
      expect(invariants.has(h.invariant), `${h.id}: ${h.invariant}`).toBe(true);
      expect([NUDGE_ID, SOLUTION_ID]).not.toContain(h.id);
      expect(h.text.length).toBeGreaterThan(60);
      if (h.fault) expect(lesson.faultMenu.some((f) => faultMatches(h.fault!, f)), `${h.id}: no fault of the menu has this shape`).toBe(true);
    }
  });
});

describe('choosing the hint', () => {
  const hints = hintsFor('lease-expiry')!;
  test('a fault-specific hint wins when the plan holds such a fault; otherwise the invariant’s general one', () => {
    const crash = targetedHint(hints, { invariant: 'every-order-receipted', faults: [{ kind: 'crash', process: 'worker-1', after: 'db', nth: 1 }] });
    expect(crash?.id).toBe('every-order-receipted/crash-db');
    expect(crash?.text).toMatch(/crashed right after its INSERT/);
    const plain = targetedHint(hints, { invariant: 'every-order-receipted', faults: [{ kind: 'crash', process: 'worker-1', before: 'queue.ack' }] });
    expect(plain?.id).toBe('every-order-receipted');
    expect(targetedHint(hints, { invariant: 'at-most-one-receipt', faults: [{ kind: 'duplicate-delivery', message: 'm1' }] })?.id).toBe('at-most-one-receipt/duplicate-delivery');
  });

  test('an invariant the ladder does not know gets no hint', () => {
    expect(targetedHint(hints, { invariant: 'no-such-invariant', faults: [] })).toBeNull();
  });

  test('a fault shape matches only faults with every field it names', () => {
    expect(faultMatches({ kind: 'crash', after: 'db' }, { kind: 'crash', process: 'worker-2', after: 'db', nth: 1 })).toBe(true);
    expect(faultMatches({ kind: 'crash', after: 'db' }, { kind: 'crash', process: 'worker-2', before: 'db' })).toBe(false);
    expect(faultMatches({ kind: 'crash', process: 'relay-1' }, { kind: 'lose-response', call: 'email.send' })).toBe(false);
  });
});

describe("the judge's wrong fixes", () => {
  const wrong = readCorpus().filter((e) => e.expect === 'wrong');

  test(`the record matches the exam: every wrong fix, its code unchanged (${RERECORD})`, () => {
    const recorded = new Map(RECORD.map((r) => [r.file, r]));
    const stale = wrong.filter((e) => recorded.get(e.name)?.code !== sha256Hex(e.code)).map((e) => e.name);
    expect(stale, RERECORD).toEqual([]);
    expect(RECORD.length).toBe(wrong.length);
    expect(RECORD.filter((r) => r.invariants.length > 0).length, 'most wrong fixes break an invariant').toBeGreaterThan(wrong.length / 2);
  });

  test('every invariant a wrong fix breaks has a targeted hint in its lesson’s ladder, for that very schedule', () => {
    const missing: string[] = [];
    for (const b of RECORD) {
      const lessonId = b.file.split('/')[0]!;
      const hints = hintsFor(lessonId)!;
      missing.push(...uncovered(hints, [b]));
      // The schedule the exploration stopped at: its own fault plan picks the hint.
      if (b.seed !== null) {
        const faults = drawFaults(lessonById(lessonId), b.seed);
        for (const inv of b.invariants) if (!targetedHint(hints, { invariant: inv, faults })) missing.push(`${b.file}: ${inv} (seed ${b.seed})`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('the check can fail: a ladder without its general hints leaves the judge’s breaks uncovered', () => {
    const hints = hintsFor('receipt-redelivery')!;
    const bare: LessonHints = { ...hints, targeted: hints.targeted.filter((h) => h.fault) };
    const breaks = RECORD.filter((r) => r.file.startsWith('receipt-redelivery/'));
    expect(uncovered(hints, breaks)).toEqual([]);
    expect(uncovered(bare, breaks).length).toBeGreaterThan(0);
  });
});
