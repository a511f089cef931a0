/**
 * Fixes that look right but keep the mistake the lesson warns about must not pass Explore. A
 * learner's-eyes review found two that did, because no explored schedule reached the situation
 * that exposes them: a UUID minted once per call of chargeOrder (not derived from the operation,
 * not stored) in random-key-on-retry, and a reminder keyed on the attempt's date instead of the
 * business date in business-date-reminder. Each fixture here is such a fix; 200 explored
 * schedules must catch it breaking the invariant the lesson is about, with a counterexample that
 * says why. A control beside them does what the lesson allows instead (a random key stored with
 * the work before its first use) and must hold, so the world does not simply demand opKey.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { explore, exploreSeed, runScenario, shrink } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const DIR = new URL('./fixtures/anti-patterns/', import.meta.url);

const CASES = [
  // The second charge comes from the job's second run, under that run's own key.
  { file: 'random-key-on-retry-hoisted.ts', scenario: 'random-key-on-retry', invariant: 'no-double-charge', says: /run 2 after a crash.*key of its own/ },
  // The 23:59 rerun, redelivered after midnight, is keyed on the next day.
  { file: 'business-date-reminder-attempt-date.ts', scenario: 'business-date-reminder', invariant: 'one-reminder-per-date', says: /for business date 2026-01-05: .*\(Jan 6, 00:\d\d(:\d\d)?\), already 2026-01-06/ },
  // Two reviews found these passing. PGlite runs one transaction at a time, so a transaction "made"
  // the check atomic and kept two relays apart; the checks of what PGlite cannot show name them.
  { file: 'concurrent-redelivery-select-in-tx.ts', scenario: 'concurrent-redelivery', invariant: 'no-email-inside-transaction', says: /inside the transaction it began at .*PGlite runs one transaction at a time/ },
  { file: 'relay-concurrency-tx-without-lock.ts', scenario: 'relay-concurrency', invariant: 'locks-what-it-publishes', says: /nothing locked the rows it published before or as it read them \(no FOR UPDATE on the read it published from/ },
  // A provider key instead of the claim: these two lessons' provider keeps no keys.
  { file: 'receipts-key-only.ts', scenario: 'concurrent-redelivery', invariant: 'at-most-one-receipt', says: /order 1042 got 2 receipts/ },
  { file: 'receipts-key-only.ts', scenario: 'lease-expiry', invariant: 'at-most-one-receipt', says: /order 1042 got 2 receipts/ },
  // A cache in a module variable: each worker's own, and gone after a crash.
  { file: 'moving-answers-module-map.ts', scenario: 'moving-answers', invariant: 'one-consistent-answer', says: /the CRM was told "\w+" .* then "\w+"/ },
  // From a wrong-fix hunt (helper-38). Check-then-act whose INSERT ignores its conflict: no seed
  // in 1–200 broke it until the scheduler's seeds were spread (simulations/prng.ts).
  { file: 'concurrent-redelivery-check-then-insert-ignore.ts', scenario: 'concurrent-redelivery', invariant: 'at-most-one-receipt', says: /order 1042 got 2 receipts/ },
  { file: 'webhook-dedupe-check-then-act.ts', scenario: 'webhook-dedupe', invariant: 'at-most-one-email', says: /order 1042 got 2 "payment received" e-mails for one payment/ },
  // Publishing before the order commits, and an outbox row outside the order's transaction.
  { file: 'dual-write-publish-first.ts', scenario: 'dual-write', invariant: 'no-phantom', says: /was published, but that order is not in the database/ },
  { file: 'dual-write-outbox-first-no-tx.ts', scenario: 'dual-write', invariant: 'no-phantom', says: /was published, but that order is not in the database/ },
  // Done before the send, and a timed-out send taken as sent: a lost request loses the receipt.
  { file: 'crash-after-send-complete-before-send.ts', scenario: 'crash-after-send', invariant: 'every-order-receipted', says: /no receipt was ever sent for order 1042/ },
  { file: 'crash-after-send-swallow-send-error.ts', scenario: 'crash-after-send', invariant: 'every-order-receipted', says: /no receipt was ever sent for order 1042/ },
  { file: 'human-rerun-swallow-and-complete.ts', scenario: 'human-rerun', invariant: 'every-order-billed', says: /was never charged/ },
  // Marked done before the work, or the two writes of one effect in separate statements.
  { file: 'replay-safety-email-done-first-nokey.ts', scenario: 'replay-safety', invariant: 'every-effect-applied', says: /no e-mail was sent/ },
  { file: 'replay-safety-audit-then-count-no-tx.ts', scenario: 'replay-safety', invariant: 'every-effect-applied', says: /the counter was never incremented/ },
  { file: 'relay-crash-done-first-nokey.ts', scenario: 'relay-crash', invariant: 'every-order-receipted', says: /no receipt was ever sent for order 1/ },
] as const;

/** Right on PostgreSQL by other means than the lesson's: the checks must not refuse them. */
const CONTROLS = [
  { file: 'relay-concurrency-advisory-lock.ts', scenario: 'relay-concurrency' },
  { file: 'relay-concurrency-update-returning-lock.ts', scenario: 'relay-concurrency' },
] as const;

describe.each(CONTROLS)('control $file', ({ file, scenario: id }) => {
  test('holds on the demonstration and across 200 explored schedules', async () => {
    const scenario = lessonById(id);
    const code = readFileSync(new URL(file, DIR), 'utf8');
    const variant = `tests/fixtures/anti-patterns/${file}`;
    const demo = await runScenario(sim.db, { scenario, code, variant, seed: scenario.demo.seed, faults: scenario.demo.faults });
    expect(demo.verdict, replayHint(demo)).toBe('held');
    const e = await explore(sim.db, { scenario, code, variant, runs: 200 });
    expect(e.errors).toBe(0);
    expect(e.violations, `npm run sim -- explore ${id} --variant ${variant} --runs 200`).toBe(0);
  });
});

const sim = simDbPerFile();

describe.each(CASES)('$file in $scenario', ({ file, scenario: id, invariant, says }) => {
  const scenario = lessonById(id);
  const code = readFileSync(new URL(file, DIR), 'utf8');
  const variant = `tests/fixtures/anti-patterns/${file}`;

  test('loads and runs the demonstration without a code error', async () => {
    const r = await runScenario(sim.db, { scenario, code, variant, seed: scenario.demo.seed });
    expect(r.error, replayHint(r)).toBeUndefined();
    expect(r.codeErrors, replayHint(r)).toEqual([]);
  });

  test(`200 explored schedules catch it breaking ${invariant}`, async () => {
    const e = await explore(sim.db, { scenario, code, variant, runs: 200 });
    const held = `explored ${e.runs} schedules of ${id} with ${variant}: none broke ${invariant} (histogram ${JSON.stringify(e.histogram)}); ` +
      `first seeds replay with: npm run sim -- explore ${id} --variant ${variant} --runs 200`;
    expect(e.runs).toBe(200);
    expect(e.errors).toBe(0);
    expect(e.byInvariant[invariant], held).toBeGreaterThan(0);
    let cx = e.counterexample!;
    expect(cx, held).not.toBeNull();
    if (cx.invariant !== invariant) {
      // The first violation broke another invariant first (a wrong fix may break several): shrink
      // the first schedule that breaks this one, as a learner replaying it would see it.
      for (let seed = 1; seed <= e.runs; seed++) {
        const r = await exploreSeed(sim.db, { scenario, code, variant }, seed);
        if (r.invariants.find((i) => !i.held)?.id === invariant) {
          cx = await shrink(sim.db, { scenario, code, variant, runs: 200 }, r);
          break;
        }
      }
    }
    // The shrunk counterexample is the one a learner replays: it must break this invariant, say
    // why, and replaying it must give the same verdict.
    const hint = replayHint({ scenario: id, variant, ...cx }) + ` — ${cx.invariant}: ${cx.detail}`;
    expect(cx.invariant, hint).toBe(invariant);
    expect(cx.detail, hint).toMatch(says);
    const again = await runScenario(sim.db, { scenario, code, variant, seed: cx.seed, faults: cx.faults, choices: cx.choices });
    expect(again.invariants.find((i) => i.id === invariant)?.held, hint).toBe(false);
  });
});

test('control: a random key stored with the work before its first use holds in random-key-on-retry', async () => {
  const scenario = lessonById('random-key-on-retry');
  const file = 'random-key-on-retry-stored-uuid.ts';
  const code = readFileSync(new URL(file, DIR), 'utf8');
  const variant = `tests/fixtures/anti-patterns/${file}`;
  const demo = await runScenario(sim.db, { scenario, code, variant, seed: scenario.demo.seed });
  expect(demo.codeErrors, replayHint(demo)).toEqual([]);
  expect(demo.verdict, replayHint(demo)).toBe('held');
  const e = await explore(sim.db, { scenario, code, variant, runs: 200 });
  const cx = e.counterexample;
  expect(e.violations, cx ? replayHint({ scenario: scenario.id, variant, ...cx }) + ` — ${cx.invariant}: ${cx.detail}` : '').toBe(0);
  expect(e.runs).toBe(200);
});
