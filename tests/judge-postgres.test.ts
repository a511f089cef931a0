/**
 * The judge on PostgreSQL 15: every file of the exam in tests/judge/ explored on the run's
 * throwaway server over the schedules the lab's Explore runs, so the tab's verdicts are checked
 * against the standard in CI. A file must get on PostgreSQL the verdict the tab's ratchet expects
 * (tests/judge.test.ts), except the tab's known misses that PostgreSQL catches, listed below: that
 * list and the tab's can only shrink.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, inject, test } from 'vitest';
import { evidenceOf, readCorpus, type CorpusEntry, type Verdict } from '../scripts/judge-corpus';
import { judgeAll } from '../scripts/judge-pool';
import { KNOWN_FALSE_ALARMS, KNOWN_MISSES, expected, firstViolationText, judgeTheExam, type Mismatch } from './helpers/judge-known';

/**
 * Wrong fixes the tab misses (KNOWN_MISSES) and PostgreSQL 15 catches within its schedules: the
 * tab's verdict is not yet the standard's there.
 */
const CAUGHT_ONLY_ON_POSTGRES: Record<string, string> = {
  // The read with the lock in its select list kept the snapshot taken before it waited for the lock.
  'relay-concurrency/lock-per-row-in-select-list.ts': 'overlapping transactions',
  // A lower row the other relay skipped (SKIP LOCKED) and never published is marked with the batch.
  'relay-concurrency/mark-up-to-max-id.ts': 'overlapping transactions',
  // The second relay's reserved share is other rows than the candidates it read and publishes.
  'relay-concurrency/candidates-then-skip-locked-share.ts': 'overlapping transactions',
  // Two relays' transactions open at once: rows read unlocked, or waited for without a re-check.
  'relay-concurrency/candidates-as-text-then-skip-locked-no-recheck.ts': 'overlapping transactions',
  'relay-concurrency/lock-star-wait-publish-all.ts': 'overlapping transactions',
  // Under a session lock every worker takes, the re-read asks only whether the lease is live.
  'concurrent-redelivery/session-lock-reread-lease-live.ts': 'two handlings one after the other under the lock',
};

/**
 * Wrong fixes the tab catches and PostgreSQL 15 misses within its schedules: the tab's model of two
 * overlapping transactions (simulations/lessons/kit/overlap.ts, off on PostgreSQL, where they do
 * overlap) judges what the code did, and PostgreSQL's schedules never run the two transactions in
 * the one order that shows it.
 */
const CAUGHT_ONLY_IN_THE_TAB: Record<string, string> = {
  // Two deliveries never reach an expired claim at the same moment there (the duplicate comes at
  // the start), so two unlocked read-then-update takeovers never race on PostgreSQL.
  'concurrent-redelivery/takeover-read-then-update-in-tx.ts': 'no schedule overlaps two takeovers',
  // Two overlapping lookups never land on both sides of the data's move there, so the CRM hears one answer.
  'moving-answers/worker-liveness-row-then-check.ts': 'no schedule overlaps two lookups across the move',
  // The top-up's plain read meets the other relay's locked rows only while both passes are open:
  // the relays' passes there never overlap so, and the tab's relay rule judges the read itself.
  'relay-concurrency/skip-locked-topped-up-by-plain-read.ts': 'no schedule overlaps two relay passes',
  // A NOWAIT refused there only while another delivery holds the expired claim's row in an open
  // takeover: no schedule brings two deliveries to one expired claim at once. The tab's probe
  // fails the NOWAIT and sees the code take the claim without the lock.
  'lease-expiry/nowait-busy-swallowed.ts': 'no schedule overlaps two takeovers',
  // A takeover read FOR KEY SHARE, then updated by key alone: it races only another takeover of
  // the same expired claim, which no schedule brings there. The tab judges the lock's strength.
  'lease-expiry/takeover-under-key-share.ts': 'no schedule overlaps two takeovers',
  // A claim row keyed on the worker's name, and a heartbeat row per shard taken for a lock: both
  // workers look up, but at one instant there, so the CRM hears the same answer twice.
  'moving-answers/check-claim-keyed-with-worker-literal.ts': 'no schedule splits two lookups across the move',
  'moving-answers/shard-heartbeat-then-check.ts': 'no schedule splits two lookups across the move',
  // An attempts counter every worker bumps, taken for the claim: both workers look up, at one
  // instant there too. The tab sees that the other worker won the same statement before it acted.
  'moving-answers/poison-counter-then-check.ts': 'no schedule splits two lookups across the move',
  // A 23505 caught under a SAVEPOINT, the other worker's row re-armed before the lookup: the two
  // lookups there fall a fraction of a second apart and hear one answer. The tab's probe fails the
  // INSERT with that row in place and sees the code look up all the same.
  'moving-answers/savepoint-dup-rearm-returning.ts': 'no schedule splits two lookups across the move',
};

/** A wrong fix expected caught stops at its first violating schedule within these, as in the lab. */
const RUNS = 200;
/**
 * Schedules for a right fix or a miss, which must run all of theirs: a prefix of the 200 (see
 * tests/judge.test.ts). JUDGE_PG_RUNS=200 runs them all.
 */
const FULL_RUNS = Number(process.env.JUDGE_PG_RUNS ?? 10);
/** Threads, each with a database of its own per file on the one server. */
const WORKERS = 2;

function expectedOnPostgres(entry: CorpusEntry): Verdict {
  if (entry.name in CAUGHT_ONLY_IN_THE_TAB) return 'missed';
  // The tab's false alarms from its one shared session hold on PostgreSQL, one connection per process.
  if (KNOWN_FALSE_ALARMS[entry.name] === 'PGlite one session') return 'held';
  return entry.name in CAUGHT_ONLY_ON_POSTGRES ? 'caught' : expected(entry);
}

describe('the judge on PostgreSQL 15 (tests/judge/)', () => {
  test('what PostgreSQL catches and the tab misses is a known miss of the tab', () => {
    for (const name of Object.keys(CAUGHT_ONLY_ON_POSTGRES)) expect(Object.keys(KNOWN_MISSES), name).toContain(name);
  });

  test('what only the tab catches is a wrong fix the tab is expected to catch', () => {
    for (const name of Object.keys(CAUGHT_ONLY_IN_THE_TAB)) {
      const entry = readCorpus().find((e) => e.name === name);
      expect(entry && expected(entry), name).toBe('caught');
    }
  });

  test("a file that changes the whole database's settings does not reach the next file its thread judges", async () => {
    const solution = readFileSync(new URL('../simulations/lessons/receipt-redelivery/solution.ts', import.meta.url), 'utf8');
    // Every connection opened after this one is read-only, the admin's included, unless the judge clears it.
    const poison = solution.replace(
      'export async function handleMessage(msg: ReceiptMessage, env: Env) {',
      () => `export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = on', current_database()); END $$");`,
    );
    expect(poison).not.toBe(solution);
    const entry = (name: string, code: string): CorpusEntry => ({ lesson: 'receipt-redelivery', name, path: `tests/judge/${name}`, expect: 'right', kind: 'derived-key', why: 'a probe', code });
    const judged = await judgeAll({
      entries: [entry('receipt-redelivery/poison.ts', poison), entry('receipt-redelivery/after.ts', solution)],
      backends: ['postgres'],
      runs: 3,
      workers: 1,
      pgUrl: inject('pgUrl'),
    });
    // Its own later connections are read-only already: its runs throw, which is its own verdict.
    expect(judged[0]!.results.postgres!.threw).toBeGreaterThan(0);
    const after = judged[1]!.results.postgres!;
    expect(after, evidenceOf(after) + firstViolationText(after)).toMatchObject({ runs: 3, violations: 0, threw: 0 });
  });

  test(
    `every file gets the tab's expected verdict, or the one listed (caught within ${RUNS} schedules; held or missed over ${FULL_RUNS})`,
    async () => {
      const { mismatches, files, seconds } = await judgeTheExam({ backend: 'postgres', pgUrl: inject('pgUrl'), runs: RUNS, fullRuns: FULL_RUNS, workers: WORKERS, want: expectedOnPostgres });
      const wrongs = mismatches.map(explain);
      expect(wrongs, `${files} files in ${seconds} s`).toEqual([]);
    },
    // ~320 files on two threads; sized for a machine three times slower than this one.
    60 * 60_000,
  );
});

function explain({ entry, exploration: e, got, want }: Mismatch): string {
  const hint =
    entry.name in CAUGHT_ONLY_IN_THE_TAB
      ? 'it is listed as caught only in the tab: PostgreSQL now catches it too, so take it off CAUGHT_ONLY_IN_THE_TAB'
      : entry.name in CAUGHT_ONLY_ON_POSTGRES
      ? 'it is listed as caught only on PostgreSQL: if the tab misses it too now, the engine lost a schedule PostgreSQL had'
      : entry.name in KNOWN_MISSES && got === 'caught'
        ? 'PostgreSQL catches a known miss of the tab: list it in CAUGHT_ONLY_ON_POSTGRES (the tab is not the standard there)'
        : entry.expect === 'wrong'
          ? `PostgreSQL 15 does not catch what the tab catches (${entry.kind}: ${entry.why}): the tab's catch does not stand on the standard`
          : `PostgreSQL 15 refuses a right fix (${entry.kind}: ${entry.why})`;
  return `${entry.name}: ${got} on PostgreSQL, expected ${want} — ${evidenceOf(e)}${firstViolationText(e)} — ${hint}. Replay: npm run judge -- --pg --only postgres --match '${entry.name.replace(/\.ts$/, '')}' --runs ${e.runs}`;
}
