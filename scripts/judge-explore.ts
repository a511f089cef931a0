/**
 * One exploration of one corpus file, as the lab's Explore runs it (seeds firstSeed…, each with the
 * fault plan drawn from the seed), counting besides the broken invariants the schedules in which
 * the learner's code threw. Runs on whatever SimDatabase it is given: PGlite, or a real PostgreSQL
 * database of the judge's own (`freshPostgresDatabase`), opened for each file as a new command
 * opens it, so nothing one file leaves behind (a table, a trigger, a setting) reaches the next.
 */
import pg from 'pg';
import { countsAgainstCode, exploreSeed, type RunResult } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import type { SimDatabase } from '../simulations/db/port';
import type { Exploration } from './judge-corpus';

/**
 * Explore `runs` schedules of `code` in lesson `lesson` on `db`. With `stopAtViolation` it stops at
 * the first schedule that breaks an invariant: the verdict is the same (a fix is caught when any
 * schedule breaks), the counts are not.
 */
export async function exploreFile(
  db: SimDatabase,
  lesson: string,
  code: string,
  variant: string,
  runs: number,
  opts: {
    firstSeed?: number;
    stopAtViolation?: boolean;
    /**
     * With `stopAtViolation`, a seed among the `runs` to explore first: where this code broke
     * before (in the tab). The verdict is the same (caught when any of the schedules breaks); a
     * file that breaks there again is judged in one schedule instead of many.
     */
    tryFirst?: number;
  } = {},
): Promise<Exploration> {
  const firstSeed = opts.firstSeed ?? 1;
  const scenario = lessonById(lesson);
  const e: Exploration = { runs: 0, violations: 0, errors: 0, threw: 0, failures: 0, loadErrors: 0, byInvariant: {}, firstViolation: null, firstError: null, firstFailure: null, ms: 0 };
  const t0 = performance.now();
  const count = (r: RunResult) => {
    e.runs++;
    const threw = r.verdict === 'error' || r.codeErrors.some((c) => !c.returned);
    const failed = r.codeErrors.find((c) => c.failure);
    if (r.verdict === 'error') e.loadErrors++;
    if (threw) {
      e.threw++;
      e.firstError ??= { seed: r.seed, message: r.error?.message ?? r.codeErrors[0]!.message };
    }
    if (failed) {
      e.failures++;
      e.firstFailure ??= { seed: r.seed, message: failed.message };
    }
    // As the lab's Explore counts: a break beyond keys is not held against the code.
    const broken = r.invariants.filter(countsAgainstCode);
    if (broken.length) {
      e.violations++;
      for (const b of broken) e.byInvariant[b.id] = (e.byInvariant[b.id] ?? 0) + 1;
      e.firstViolation ??= { seed: r.seed, invariant: broken[0]!.id, detail: broken[0]!.detail };
    } else if (threw) {
      e.errors++;
    }
    // Code that cannot load fails the same way on every seed.
    return r.verdict === 'error' || (opts.stopAtViolation && (broken.length > 0 || !!failed));
  };
  const first = opts.stopAtViolation && opts.tryFirst !== undefined && opts.tryFirst >= firstSeed && opts.tryFirst < firstSeed + runs ? opts.tryFirst : null;
  if (first === null || !count(await exploreSeed(db, { scenario, code, variant }, first))) {
    for (let seed = firstSeed; seed < firstSeed + runs; seed++) {
      if (seed !== first && count(await exploreSeed(db, { scenario, code, variant }, seed))) break;
    }
  }
  e.ms = Math.round(performance.now() - t0);
  return e;
}

/**
 * A new, empty database on the server at `adminUrl`, the settings given to it cleared on request,
 * and how to drop it. The judge keeps one per thread and opens it for each file as a new command
 * does (the lesson's schemas rebuilt): a learner's table or trigger must never carry from one file
 * into the next.
 */
export async function freshPostgresDatabase(adminUrl: string, name: string): Promise<{ url: string; resetSettings(): Promise<void>; drop(): Promise<void> }> {
  const asAdmin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await asAdmin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    resetSettings: () => asAdmin(`ALTER DATABASE ${name} RESET ALL`),
    drop: () => asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
