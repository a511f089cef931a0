/**
 * Records which invariant each wrong fix of the judge's exam (tests/judge/) breaks in the tab's
 * engine, for tests/hint-ladder.test.ts: every invariant a wrong fix breaks must have a targeted
 * hint in its lesson's ladder. The test reads the record instead of exploring 126 files; it fails
 * when a wrong fix's code changed or a new one appeared since, naming this command:
 *
 *   npm run -s judge -- --stop-early --match '^[a-z-]+/(?!right-)' --save /tmp/judge.jsonl
 *   npx tsx scripts/judge-breaks.ts /tmp/judge.jsonl
 *
 * Each exploration stops at its first violating schedule (as the lab's Explore shows its first
 * counterexample); the record keeps that schedule's seed and every invariant it broke.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../lib/op-key';
import { readCorpus, type Exploration } from './judge-corpus';

/** Where the record lives. */
export const JUDGE_BREAKS_FILE = fileURLToPath(new URL('../tests/fixtures/judge-breaks.json', import.meta.url));

/** One wrong fix: its code's digest, and what its exploration broke (empty: nothing, in `runs` schedules). */
export interface JudgeBreak {
  file: string;
  code: string;
  runs: number;
  /** The first violating schedule's seed, or null. */
  seed: number | null;
  /** The invariants that schedule broke. */
  invariants: string[];
}

function main(saved: string) {
  const lines = readFileSync(saved, 'utf8').split('\n').filter(Boolean);
  const results = new Map<string, { code: string; runs: number; exploration: Exploration }>();
  for (const line of lines) {
    const s = JSON.parse(line) as { file: string; code: string; backend: string; runs: number; exploration: Exploration };
    if (s.backend === 'pglite') results.set(`${s.file} ${s.code}`, s);
  }
  const record: JudgeBreak[] = [];
  const missing: string[] = [];
  for (const entry of readCorpus().filter((e) => e.expect === 'wrong')) {
    const code = sha256Hex(entry.code);
    const r = results.get(`${entry.name} ${code}`);
    if (!r) {
      missing.push(entry.name);
      continue;
    }
    const e = r.exploration;
    record.push({
      file: entry.name,
      code,
      runs: r.runs,
      seed: e.firstViolation?.seed ?? null,
      invariants: Object.entries(e.byInvariant)
        .filter(([, n]) => n > 0)
        .map(([id]) => id)
        .sort(),
    });
  }
  if (missing.length) throw new Error(`no saved result for ${missing.length} wrong fixes (${missing.slice(0, 5).join(', ')}…): judge them into ${saved} first`);
  writeFileSync(JUDGE_BREAKS_FILE, `${JSON.stringify(record, null, 1)}\n`);
  console.log(`judge-breaks: ${record.length} wrong fixes, ${record.filter((r) => r.invariants.length).length} break an invariant → ${JUDGE_BREAKS_FILE}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv[2] ?? '/tmp/judge.jsonl');
