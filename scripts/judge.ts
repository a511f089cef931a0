/**
 * `npm run judge`: how Explore's verdict does against the exam of wrong and right fixes in
 * tests/judge/ — in the tab's engine (PGlite) and on a real PostgreSQL 15 (the CLI's `--db` path).
 * Every file is explored over the same schedules (seeds 1…N, faults drawn from each seed) on each
 * back-end, across worker threads, and one table says, per file, the verdict and the invariant it
 * rests on, whether the two back-ends agree, and the totals against the targets.
 *
 *   npm run judge                      PGlite only
 *   npm run judge -- --pg              and PostgreSQL 15 (a throwaway cluster from PG_BIN_DIR)
 *   npm run judge -- --db URL          and PostgreSQL at URL (a superuser: one database per file is made and dropped)
 *   … --lesson <id> --runs N --workers N --json
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { sha256Hex } from '../lib/op-key';
import type { Exploration } from './judge-corpus';
import { evidenceOf, readCorpus, verdictOf, type CorpusEntry, type Verdict } from './judge-corpus';
import { defaultJudgeWorkers, judgeAll, type Backend, type JudgedFile } from './judge-pool';

/** What the exam must show (issue 31). */
export const TARGETS = { caughtPercent: 95, heldPercent: 100, agreementPercent: 100 };

const USAGE = `npm run judge -- [--pg | --db URL] [--only pglite|postgres] [--lesson ID] [--match REGEX] [--runs N] [--workers N]
                      [--stop-early] [--save FILE.jsonl [--report]] [--json]`;

interface Options {
  lesson?: string;
  /** Only files whose name (lesson/file.ts) matches this regular expression. */
  match?: string;
  only?: Backend;
  /** Stop each exploration at its first violating schedule: the same verdicts, partial counts. */
  stopEarly: boolean;
  /** Append each result to this file and take results already in it (a resumable run). */
  save?: string;
  /** With --save: print the table of what the file holds, running nothing. */
  report: boolean;
  runs: number;
  workers: number;
  json: boolean;
  pg: boolean;
  db?: string;
}

function parse(argv: string[]): Options {
  const o: Options = { runs: 200, workers: defaultJudgeWorkers(), json: false, pg: false, stopEarly: false, report: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === '--json') o.json = true;
    else if (a === '--pg') o.pg = true;
    else if (a === '--db') o.db = value();
    else if (a === '--lesson') o.lesson = value();
    else if (a === '--match') o.match = value();
    else if (a === '--stop-early') o.stopEarly = true;
    else if (a === '--report') o.report = true;
    else if (a === '--save') o.save = value();
    else if (a === '--only') {
      const v = value();
      if (v !== 'pglite' && v !== 'postgres') throw new Error('--only takes pglite or postgres');
      o.only = v;
    }
    else if (a === '--runs') o.runs = Number(value());
    else if (a === '--workers') o.workers = Number(value());
    else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  if (o.report && !o.save) throw new Error('--report prints what a --save file holds: give --save FILE');
  if (!Number.isInteger(o.runs) || o.runs < 1) throw new Error('--runs must be a whole number from 1');
  if (!Number.isInteger(o.workers) || o.workers < 1) throw new Error('--workers must be a whole number from 1');
  return o;
}

/** A file's outcome on both back-ends. */
export interface FileVerdict {
  file: string;
  lesson: string;
  expect: CorpusEntry['expect'];
  kind: string;
  tab: { verdict: Verdict; evidence: string; threw: number } | null;
  postgres: { verdict: Verdict; evidence: string; threw: number } | null;
  agree: boolean | null;
}

function side(entry: CorpusEntry, e: Exploration | undefined) {
  return e ? { verdict: verdictOf(entry.expect, e), evidence: evidenceOf(e), threw: e.threw } : null;
}

export function verdicts(files: readonly JudgedFile[]): FileVerdict[] {
  return files.map(({ entry, results }) => {
    const tab = side(entry, results.pglite);
    const postgres = side(entry, results.postgres);
    return { file: entry.name, lesson: entry.lesson, expect: entry.expect, kind: entry.kind, tab, postgres, agree: tab && postgres ? tab.verdict === postgres.verdict : null };
  });
}

/** Totals of one back-end: wrong fixes caught, right fixes held. */
function totalsOf(rows: readonly FileVerdict[], pick: (r: FileVerdict) => FileVerdict['tab']) {
  const wrong = rows.filter((r) => r.expect === 'wrong' && pick(r));
  const right = rows.filter((r) => r.expect === 'right' && pick(r));
  const caught = wrong.filter((r) => pick(r)!.verdict === 'caught').length;
  const held = right.filter((r) => pick(r)!.verdict === 'held').length;
  return { wrong: wrong.length, caught, right: right.length, held, caughtPercent: pct(caught, wrong.length), heldPercent: pct(held, right.length) };
}

const pct = (a: number, b: number) => (b ? Math.round((1000 * a) / b) / 10 : 100);

export function totals(rows: readonly FileVerdict[]) {
  const both = rows.filter((r) => r.agree !== null);
  const agreed = both.filter((r) => r.agree).length;
  return {
    tab: totalsOf(rows, (r) => r.tab),
    postgres: both.length ? totalsOf(rows, (r) => r.postgres) : null,
    agreement: both.length ? { files: both.length, agreed, percent: pct(agreed, both.length) } : null,
  };
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

function cell(s: FileVerdict['tab']): string {
  if (!s) return '—';
  return `${s.verdict}: ${s.evidence}${s.threw ? ` (threw in ${s.threw})` : ''}`;
}

function print(rows: readonly FileVerdict[], t: ReturnType<typeof totals>, seconds: number, o: Options): void {
  const w = Math.max(...rows.map((r) => r.file.length), 4);
  const cw = Math.max(...rows.map((r) => cell(r.tab).length), 12);
  const out = (s = '') => process.stdout.write(`${s}\n`);
  out(`${pad('file', w)}  expect  ${pad('in the tab (PGlite)', cw)}  ${o.pg || o.db ? 'on PostgreSQL 15' : ''}`);
  for (const r of rows) {
    const agree = r.agree === null ? '' : r.agree ? '  = ' : '  ≠ ';
    out(`${pad(r.file, w)}  ${pad(r.expect, 6)}  ${pad(cell(r.tab), cw)}  ${r.postgres ? cell(r.postgres) + agree : ''}`);
  }
  out();
  const line = (name: string, x: ReturnType<typeof totalsOf>) =>
    out(
      `${pad(name, 16)} wrong caught ${x.caught}/${x.wrong} = ${x.caughtPercent} % (target ≥ ${TARGETS.caughtPercent} %)   ` +
        `right held ${x.held}/${x.right} = ${x.heldPercent} % (target ${TARGETS.heldPercent} %)`,
    );
  line('in the tab', t.tab);
  if (t.postgres) line('on PostgreSQL 15', t.postgres);
  if (t.agreement) out(`${pad('agreement', 16)} ${t.agreement.agreed}/${t.agreement.files} files = ${t.agreement.percent} % (target ${TARGETS.agreementPercent} %: identical verdicts)`);
  if (o.stopEarly) out('--stop-early: each exploration stopped at its first violating schedule, so a caught file shows 1, not how many broke');
  out(`${rows.length} files × ${o.runs} schedules × ${o.only ? 1 : o.pg || o.db ? 2 : 1} back-end(s) on ${o.workers} thread${o.workers === 1 ? '' : 's'}: ${seconds.toFixed(1)} s`);
}

/** One saved result: enough to tell it belongs to this file's code and this run's settings. */
function savedLine(entry: CorpusEntry, backend: Backend, o: Options, exploration: Exploration) {
  return { file: entry.name, code: sha256Hex(entry.code), backend, runs: o.runs, stopEarly: o.stopEarly, exploration };
}

/** Results in `file` that match the corpus as it is now and this run's settings, by file and back-end. */
function loadSaved(file: string, o: Options): (entry: CorpusEntry, backend: Backend) => Exploration | undefined {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const saved = new Map<string, Exploration>();
  for (const line of lines) {
    const s = JSON.parse(line) as ReturnType<typeof savedLine>;
    if (s.runs === o.runs && s.stopEarly === o.stopEarly) saved.set(`${s.file} ${s.code} ${s.backend}`, s.exploration);
  }
  return (entry, backend) => saved.get(`${entry.name} ${sha256Hex(entry.code)} ${backend}`);
}

async function main() {
  const o = parse(process.argv.slice(2));
  const entries = readCorpus(o.lesson).filter((e) => !o.match || new RegExp(o.match).test(e.name));
  if (!entries.length) throw new Error(o.lesson ? `no corpus files for lesson ${o.lesson}` : 'the corpus is empty');
  const backends: Backend[] = (o.pg || o.db ? (['pglite', 'postgres'] as Backend[]) : (['pglite'] as Backend[])).filter((b) => !o.only || b === o.only);
  if (!backends.length) throw new Error('--only postgres needs --pg or --db URL');
  let server: { url: string; stop(): Promise<void> } | null = null;
  if (o.pg && !o.db && !o.report) {
    const { startPgTestServer } = await import('./pg-test-server.mjs');
    server = await startPgTestServer();
  }
  const t0 = performance.now();
  try {
    const files = await judgeAll({
      entries,
      backends,
      runs: o.runs,
      workers: o.workers,
      pgUrl: o.db ?? server?.url ?? null,
      stopAtViolation: () => o.stopEarly,
      saved: o.save ? loadSaved(o.save, o) : undefined,
      savedOnly: o.report,
      onDone: (f, b, done, total) => {
        const e = f.results[b]!;
        if (o.save) appendFileSync(o.save, JSON.stringify(savedLine(f.entry, b, o, e)) + '\n');
        // One line per result on stderr: a run stopped half way has still said what it found.
        process.stderr.write(`${done}/${total} ${b === 'postgres' ? 'PostgreSQL' : 'PGlite'} ${f.entry.name}: ${verdictOf(f.entry.expect, e)}: ${evidenceOf(e)} (${(e.ms / 1000).toFixed(1)} s)\n`);
      },
    });
    const rows = verdicts(files);
    const t = totals(rows);
    const seconds = (performance.now() - t0) / 1000;
    if (o.json) {
      const detail = files.map((f) => ({ file: f.entry.name, why: f.entry.why, ...f.results }));
      process.stdout.write(JSON.stringify({ runs: o.runs, workers: o.workers, seconds: Math.round(seconds * 10) / 10, targets: TARGETS, totals: t, rows, detail }, null, 2) + '\n');
    } else print(rows, t, seconds, o);
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  });
}
