/**
 * The judge's exam (tests/judge/<lesson>/<name>.ts): wrong and right fixes written as learners
 * would, each opening with a machine-readable header, and how one exploration of a file is turned
 * into a verdict. Shared by `npm run judge` (scripts/judge.ts) and the ratchet (tests/judge.test.ts),
 * so both read the corpus and judge a file the same way.
 *
 *   // expect: wrong | right
 *   // kind: one of WRONG_KINDS or RIGHT_KINDS
 *   // why: one sentence: why it is wrong (or right) on PostgreSQL 15
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the corpus lives: one folder per lesson id. */
export const CORPUS_DIR = fileURLToPath(new URL('../tests/judge/', import.meta.url));

/** The mistakes a wrong fix makes. */
export const WRONG_KINDS = [
  'wrong-key',
  'check-then-act',
  'lease',
  'done-before-effect',
  'done-late',
  'swallowed-timeout',
  'retry-402',
  'whole-batch',
  'memory-cache',
  'outbox-outside-tx',
  'publish-before-commit',
  'relay-no-lock',
  'relay-mark-before-publish',
  'host-clock',
  'pool-client-mixup',
  'no-claim',
  'email-in-tx',
  'result-ignored',
  'no-key',
  'no-retry',
  'batch-index',
  'lock-leak',
  'sql-newer-than-15',
] as const;

/** The mechanisms a right fix uses instead of the shipped solution's. */
export const RIGHT_KINDS = [
  'advisory-lock',
  'compare-and-set',
  'own-dedupe-table',
  'cte',
  'stored-key',
  'derived-key',
  'per-item',
  'row-lock',
  'first-writer-wins',
  'trigger',
  'table-lock',
] as const;

export type WrongKind = (typeof WRONG_KINDS)[number];
export type RightKind = (typeof RIGHT_KINDS)[number];

/** One file of the exam. */
export interface CorpusEntry {
  /** The lesson (scenario) id: the folder it is in. */
  lesson: string;
  /** `<lesson>/<name>.ts`, relative to the corpus folder: the file's name in tables and lists. */
  name: string;
  /** Path relative to the repository, as `npm run sim -- … --variant` takes it. */
  path: string;
  expect: 'wrong' | 'right';
  kind: WrongKind | RightKind;
  why: string;
  code: string;
}

/** Read the header of a corpus file; throws, naming the file, when it is missing or malformed. */
export function parseHeader(name: string, code: string): Pick<CorpusEntry, 'expect' | 'kind' | 'why'> {
  const fields = new Map<string, string>();
  for (const line of code.split('\n')) {
    const m = /^\/\/ (expect|kind|why): (.+)$/.exec(line.trim());
    if (!m) break;
    fields.set(m[1]!, m[2]!.trim());
  }
  const expect = fields.get('expect');
  const kind = fields.get('kind');
  const why = fields.get('why');
  if (expect !== 'wrong' && expect !== 'right') throw new Error(`${name}: the first line must be "// expect: wrong" or "// expect: right"`);
  const kinds: readonly string[] = expect === 'wrong' ? WRONG_KINDS : RIGHT_KINDS;
  if (!kind || !kinds.includes(kind)) throw new Error(`${name}: "// kind:" must be one of ${kinds.join(', ')} for a ${expect} fix, not ${kind ?? 'missing'}`);
  if (!why) throw new Error(`${name}: "// why:" (one sentence) is missing`);
  return { expect, kind: kind as WrongKind | RightKind, why };
}

/** Every corpus file, in lesson then name order; `lesson` keeps one lesson's. */
export function readCorpus(lesson?: string): CorpusEntry[] {
  const repo = fileURLToPath(new URL('..', import.meta.url));
  const lessons = readdirSync(CORPUS_DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const entries: CorpusEntry[] = [];
  for (const id of lessons) {
    if (lesson && id !== lesson) continue;
    for (const file of readdirSync(join(CORPUS_DIR, id)).filter((f) => f.endsWith('.ts')).sort()) {
      const full = join(CORPUS_DIR, id, file);
      const code = readFileSync(full, 'utf8');
      const name = `${id}/${file}`;
      entries.push({ lesson: id, name, path: relative(repo, full), code, ...parseHeader(name, code) });
    }
  }
  return entries;
}

/** What an exploration of one file found on one back-end. */
export interface Exploration {
  runs: number;
  /** Schedules in which an invariant broke. */
  violations: number;
  /** Schedules in which the learner's code threw (or could not load) and no invariant broke. */
  errors: number;
  /** Schedules in which the learner's code threw at all, broken invariant or not. */
  threw: number;
  /** Schedules in which the code could not even load (a syntax error, a missing export). */
  loadErrors: number;
  /** Violating schedules by invariant id. */
  byInvariant: Record<string, number>;
  /** The first schedule that broke an invariant, and what it said. */
  firstViolation: { seed: number; invariant: string; detail: string } | null;
  /** The first schedule whose code threw, and what. */
  firstError: { seed: number; message: string } | null;
  /** Schedules in which the code failed (CodeError.failure: a TypeError, a rejected statement, an unusable answer). */
  failures: number;
  /** The first schedule whose code failed, and how. */
  firstFailure: { seed: number; message: string } | null;
  ms: number;
}

/** A verdict as a learner would read it. */
export type Verdict = 'caught' | 'missed' | 'held' | 'false alarm';

/**
 * Whether the code's errors alone make an exploration dirty, as they do the lab's: it could not
 * load, or it failed in some schedule (a TypeError, a statement the database rejected as wrong,
 * BEGIN through the pool). A throw of the code's own Error or of a provider's ("someone else
 * holds the claim", a timed-out send) is how a handler leaves work for a retry, which the shipped
 * solutions do too: counted and shown, not by itself a verdict.
 */
export function failsByErrors(e: Exploration): boolean {
  return e.loadErrors > 0 || e.failures > 0;
}

/** The verdict of one exploration: an invariant broke, or the code's errors made it dirty. */
export function verdictOf(expect: CorpusEntry['expect'], e: Exploration): Verdict {
  const dirty = e.violations > 0 || failsByErrors(e);
  if (expect === 'wrong') return dirty ? 'caught' : 'missed';
  return dirty ? 'false alarm' : 'held';
}

/** "no-double-charge 37/200", "code error 200/200", or "0/200": what a verdict rests on. */
export function evidenceOf(e: Exploration): string {
  const top = Object.entries(e.byInvariant)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([id, n]) => `${id} ${n}/${e.runs}`);
  if (failsByErrors(e)) top.push(e.loadErrors ? 'does not load' : `code failed ${e.failures}/${e.runs}`);
  return top.length ? top.join(', ') : `0/${e.runs}`;
}
