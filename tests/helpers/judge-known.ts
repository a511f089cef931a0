/**
 * What the judge's ratchets (tests/judge.test.ts in the tab, tests/judge-postgres.test.ts on
 * PostgreSQL 15) know about the exam beyond each file's own header: the wrong fixes the tab misses
 * and the right fixes it refuses, each with the weakness behind it.
 */
import { readCorpus, verdictOf, type CorpusEntry, type Exploration, type Verdict } from '../../scripts/judge-corpus';
import { readFileSync } from 'node:fs';
import { judgeAll, type Backend } from '../../scripts/judge-pool';
import { JUDGE_BREAKS_FILE, type JudgeBreak } from '../../scripts/judge-breaks';
import { sha256Hex } from '../../lib/op-key';

/** Why Explore cannot tell a file right from wrong today: what the world or the engine lacks. */
export type Weakness =
  /** Faults land at fixed steps: never right after COMMIT, never between a claim and a late send, duplicates only at one instant. */
  | 'fixed fault moments'
  /** PGlite runs one transaction at a time: races between two open transactions do not happen, and text rules stand in. */
  | 'PGlite one session'
  /** Every process reads one clock: a worker's clock never drifts from the database's. */
  | 'no clock skew'
  /** The race is inside one statement (its snapshot taken before the locks it tries): no schedule puts another process between the two. */
  | 'inside one statement'
  /** A run has a handful of operations: a key cut to a few hex digits never meets another's. */
  | 'few keys'
  /** A process's pool queries and its clients share one connection: a setting or a lock pg.Pool would leave on another one stays with the process. */
  | 'one connection per process'
  /** The lesson has one process of a kind (one shop, one relay) where production runs several, or every item of a batch differs. */
  | 'a world too uniform'
  /** Every process runs in the host's one time zone and locale: a date the code formats with the host's defaults reads the same on every worker. */
  | 'one host zone and locale';

/**
 * Wrong fixes 200 explored schedules do not catch in the tab today, with the weakness that hides
 * each. Measured by `npm run judge` on this commit; docs/judge.md says what each weakness needs.
 */
export const KNOWN_MISSES: Record<string, Weakness> = {
  // Found by the eighth review (2026-12-07), each missed on PostgreSQL 15 as well unless said.
  // Relays poll in step on one clock, so a lock keyed on the two-second tick is always shared.
  'relay-concurrency/advisory-lock-per-poll-tick.ts': 'fixed fault moments',
  // The batch is marked up to its highest id: a lower row the other relay skipped and never
  // published is marked too. The tab's probe skips every row or none; PostgreSQL 15 catches it.
  'relay-concurrency/mark-up-to-max-id.ts': 'PGlite one session',
  // SET SESSION CHARACTERISTICS through the pool, and an advisory unlock on another client.
  'concurrent-redelivery/serializable-set-through-pool.ts': 'one connection per process',
  'concurrent-redelivery/session-lock-unlocked-on-another-client.ts': 'one connection per process',
  // relay-crash's second worker only stands in for a lost one: an unchecked takeover never races another.
  'relay-crash/takeover-read-then-update-by-key.ts': 'a world too uniform',
  // One shop: max(id) after the INSERT is always this checkout's order.
  'dual-write/outbox-id-from-max-in-tx.ts': 'a world too uniform',
  // The event id's hash cut to 4 hex digits: three events never collide (both back-ends).
  'webhook-dedupe/key-hash-first-four-hex.ts': 'few keys',
  // The advisory lock is called in the select list of the read that re-checks published_at IS NULL.
  // PostgreSQL 15 filtered the row with the snapshot taken before the lock wait and returns it as
  // unpublished (seed 6); the tab parks the statement and runs it whole after the release, on a
  // snapshot that sees the other relay's mark, and the relay rule counts a lock held at the read.
  'relay-concurrency/lock-per-row-in-select-list.ts': 'PGlite one session',
  // `WHERE published_at IS NULL AND pg_try_advisory_xact_lock(id)`: the statement's snapshot is
  // taken before it tries the locks, so a relay that commits in between leaves rows this one locks
  // and still sees unpublished. PostgreSQL 15 misses it too: the window is inside one statement.
  'relay-concurrency/try-lock-in-where.ts': 'inside one statement',
  // One autocommit INSERT … WHERE NOT EXISTS into a table with no unique key: two such statements
  // running at once both find nothing. The engine runs one statement at a time (both back-ends).
  'concurrent-redelivery/own-claims-table-no-unique.ts': 'inside one statement',
  // The audit line guards itself with INSERT … SELECT … WHERE NOT EXISTS and no unique key; the
  // replay comes long after the first handling, and the race would be inside one statement anyway.
  'replay-safety/audit-not-exists-guard.ts': 'inside one statement',
  // Found by the ninth review (2026-12-07). The lease is written and compared on the worker's own
  // clock; no worker's clock in relay-crash drifts from the database's (both back-ends).
  'relay-crash/lease-from-host-clock.ts': 'no clock skew',
  // Found by the tenth review (2026-12-07), each missed on PostgreSQL 15 as well unless said.
  // A 5 s lease over a lookup retried once (about 11 s of work): no second delivery falls between 5 and 11 s.
  'moving-answers/lease-covers-one-lookup.ts': 'fixed fault moments',
  // A done-check outside the recording transaction, the e-mail sent under the event's key: a
  // second delivery that reads while the first's record is uncommitted sends again after the first
  // handling finished (own-record). In the tab its read waits for the COMMIT; PostgreSQL 15 met
  // that schedule (seed 10) until the menu gained a lost answer, and within 200 no longer does.
  'webhook-dedupe/done-check-outside-tx-then-keyed-send.ts': 'PGlite one session',
  // Found by the eleventh review (2026-12-07). The key's date is formatted with the host's default
  // zone and locale: workers in two regions would name one business date two ways (both back-ends).
  'business-date-reminder/key-date-localized-on-host.ts': 'one host zone and locale',
  // An anti-join on the relay's own sent log under FOR UPDATE SKIP LOCKED: a relay whose snapshot
  // predates the other's COMMIT locks the row once it is released and still sees it unsent. The
  // window is inside one statement (both back-ends).
  'relay-concurrency/sent-log-anti-join-skip-locked.ts': 'inside one statement',
  // Candidates read unlocked, then a FOR UPDATE SKIP LOCKED read only to reserve "a share", and the
  // candidates published: in the tab both reads return the same rows, so the rows published are
  // the rows locked, and the SKIP LOCKED probe skips every row or none. PostgreSQL 15 catches it.
  'relay-concurrency/candidates-then-skip-locked-share.ts': 'PGlite one session',
  // An expired lease read, then a DELETE of the claim without the expiry re-checked: it needs two
  // deliveries reaching one expired claim at once, which no schedule brings (both back-ends).
  'lease-expiry/delete-stale-then-claim.ts': 'fixed fault moments',
  // Found by the sixteenth review (2026-12-07), each missed on PostgreSQL 15 as well. A claim
  // statement whose decision rests on a sub-select or a WITH query read from the statement's
  // snapshot, not on the row it writes: a statement that waited for the other worker's row
  // re-checks only its own WHERE on the newest row, and the stale sub-select lets it through. The
  // engine runs one statement at a time, and PostgreSQL 15's runs never had a claim wait there.
  'concurrent-redelivery/cte-before-snapshot-decides.ts': 'inside one statement',
  'concurrent-redelivery/upsert-guarded-by-not-exists.ts': 'inside one statement',
  'concurrent-redelivery/update-from-stale-cte.ts': 'inside one statement',
  'lease-expiry/takeover-exists-reselect.ts': 'inside one statement',
  'lease-expiry/takeover-scalar-subquery.ts': 'inside one statement',
  'moving-answers/cte-takeover-guard-on-snapshot.ts': 'inside one statement',
  // Found by the eighteenth review (2026-12-07), each missed on PostgreSQL 15 as well unless said.
  // A PL/pgSQL claim function whose IF EXISTS check and unguarded upsert are two statements inside
  // one call; an UPDATE whose key comes from a sub-select of expired claims, which a waiting
  // UPDATE does not run again (PostgreSQL 15 catches it with a slow lookup and a duplicate 2 s in).
  'concurrent-redelivery/claim-plpgsql-check-then-upsert.ts': 'inside one statement',
  'moving-answers/claim-update-by-subquery.ts': 'inside one statement',
  // Found by the nineteenth review (2026-12-07). A DO block whose RAISE rests on a check made before
  // its upsert, which then silently does nothing: the race is inside one statement (both back-ends).
  'concurrent-redelivery/do-block-exists-then-insert.ts': 'inside one statement',
  // A session lock every worker takes, and under it a re-read that asks only whether the lease is
  // live (it is, for both): the second worker sends after the first. The lock is right and the
  // logic under it wrong; the tab's schedules never run the two handlings through it one after the
  // other (PostgreSQL 15 catches it).
  'concurrent-redelivery/session-lock-reread-lease-live.ts': 'fixed fault moments',
  // Found by the twentieth review (2026-12-08), each caught on PostgreSQL 15.
  // Candidates read unlocked as text, their ids then locked FOR UPDATE SKIP LOCKED without
  // published_at re-checked; and a FOR UPDATE that waits, reads every column and never looks at
  // published_at: in the tab the relays' transactions never overlap (PostgreSQL 15 catches both).
  'relay-concurrency/candidates-as-text-then-skip-locked-no-recheck.ts': 'PGlite one session',
  'relay-concurrency/lock-star-wait-publish-all.ts': 'PGlite one session',
};

/** Right fixes Explore refuses (their behaviour on PostgreSQL 15 is right), with the weakness behind the alarm; a new alarm is named here with its weakness or mended. */
export const KNOWN_FALSE_ALARMS: Record<string, Weakness> = {
  // Found by the sixteenth review (2026-12-07). An advisory lock held in a client's transaction,
  // and the check and claim through the pool meanwhile: on PostgreSQL those go to other pooled
  // connections. The tab has one connection per process, where they would run inside the
  // transaction, so it refuses a pool query while the process's client holds one, and says why
  // (both back-ends: the engine refuses it before it reaches the database).
  'concurrent-redelivery/right-xact-lock-then-pool-claim.ts': 'one connection per process',
  // Found by the twentieth review (2026-12-08). A takeover once the owner's backend is gone, asked
  // of pg_stat_get_activity(pid), the function under pg_stat_activity: the tab answers the view
  // per connection, not the function, which lists only PGlite's one backend, so the claim is
  // never taken (PostgreSQL 15 holds it).
  'lease-expiry/right-takeover-when-owner-gone-stat-get-activity.ts': 'PGlite one session',
};

/** The verdict the ratchet expects of `entry` in the tab: its header's, or the known one. */
export function expected(entry: CorpusEntry): Verdict {
  if (entry.expect === 'wrong') return entry.name in KNOWN_MISSES ? 'missed' : 'caught';
  return entry.name in KNOWN_FALSE_ALARMS ? 'false alarm' : 'held';
}

/** A file whose verdict is not the one expected of it. */
export interface Mismatch {
  entry: CorpusEntry;
  exploration: Exploration;
  got: Verdict;
  want: Verdict;
}

/**
 * Every exam file explored on `backend`: a file expected caught (or a known false alarm) shows its
 * verdict at its first violating schedule, so it stops there within `runs`; the others need all of
 * theirs ("none broke" needs every schedule) and run `fullRuns`. Returns the files whose verdict is
 * not `want(entry)`, with how many files were judged in how many seconds.
 */
export async function judgeTheExam(opts: {
  backend: Backend;
  pgUrl: string | null;
  runs: number;
  fullRuns: number;
  workers: number;
  want: (entry: CorpusEntry) => Verdict;
}): Promise<{ mismatches: Mismatch[]; files: number; seconds: string }> {
  const t0 = performance.now();
  const stopsEarly = (entry: CorpusEntry) => opts.want(entry) === 'caught' || opts.want(entry) === 'false alarm';
  const judged = await judgeAll({
    entries: readCorpus(),
    backends: [opts.backend],
    runs: opts.runs,
    runsOf: (entry) => (stopsEarly(entry) ? opts.runs : opts.fullRuns),
    stopAtViolation: stopsEarly,
    tryFirst: breaksBefore(),
    workers: opts.workers,
    pgUrl: opts.pgUrl,
  });
  const mismatches: Mismatch[] = [];
  for (const { entry, results } of judged) {
    const exploration = results[opts.backend]!;
    const got = verdictOf(entry.expect, exploration);
    const want = opts.want(entry);
    if (got !== want) mismatches.push({ entry, exploration, got, want });
  }
  return { mismatches, files: judged.length, seconds: ((performance.now() - t0) / 1000).toFixed(1) };
}

/**
 * Where each wrong fix broke in the tab (tests/fixtures/judge-breaks.json), for the code it has
 * now: explored first, a file that breaks there again is judged in one schedule. The verdict is
 * the same whichever seed comes first.
 */
function breaksBefore(): (entry: CorpusEntry) => number | undefined {
  const record = JSON.parse(readFileSync(JUDGE_BREAKS_FILE, 'utf8')) as JudgeBreak[];
  const seeds = new Map(record.filter((r) => r.seed !== null).map((r) => [`${r.file} ${r.code}`, r.seed!]));
  return (entry) => seeds.get(`${entry.name} ${sha256Hex(entry.code)}`);
}

/** `; first at seed N: invariant: detail`, or nothing when no schedule broke. */
export function firstViolationText(e: Exploration): string {
  const violation = e.firstViolation ? `; first at seed ${e.firstViolation.seed}: ${e.firstViolation.invariant}: ${e.firstViolation.detail}` : '';
  // A throw that is not a failure (a lost race the database reported, a provider's error passed on)
  // is not in the evidence, yet it may be why an invariant broke: say what was thrown first.
  const thrown = e.threw > 0 && e.firstError ? `; the code threw in ${e.threw} of ${e.runs}, first at seed ${e.firstError.seed}: ${e.firstError.message}` : '';
  return violation + thrown;
}
