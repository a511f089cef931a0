/**
 * Trace export on real runs of receipt-redelivery's demonstration: the JSON carries the whole run
 * and replays to the same trace hash; the Mermaid diagram has the swimlane participants in order,
 * one arrow per message, the crash as a note, and text from the run cannot break out of its line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runScenario, type RunResult } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { codeHashOf, escapeMermaid, traceToJson, traceToMermaid, TRACE_EXPORT_FORMAT } from '../simulations/run/trace-export';
import { spawnCli } from './helpers/cli';
import { openSimDb, replayHint } from './helpers/sim-db';

let sim: Awaited<ReturnType<typeof openSimDb>>;
const scenario = lessonById('receipt-redelivery');
let starter: RunResult;
let solution: RunResult;

beforeAll(async () => {
  sim = await openSimDb();
  const base = { scenario, seed: scenario.demo.seed, faults: scenario.demo.faults };
  starter = await runScenario(sim.db, { ...base, code: scenario.variants.starter.code, variant: 'starter' });
  solution = await runScenario(sim.db, { ...base, code: scenario.variants.solution.code, variant: 'solution' });
});
afterAll(() => sim.close());

const ARROW = /^ {2}(p\d+)(->>|-->>|-x)(p\d+): (.*)$/;

test('JSON: the whole run, replayable to the same trace hash', async () => {
  const doc = JSON.parse(traceToJson(starter));
  expect(doc).toMatchObject({
    format: TRACE_EXPORT_FORMAT,
    version: 1,
    scenario: 'receipt-redelivery',
    variant: 'starter',
    seed: scenario.demo.seed,
    traceHash: starter.traceHash,
    verdict: 'violated',
  });
  expect(doc.faults).toEqual(JSON.parse(JSON.stringify(scenario.demo.faults)));
  expect(doc.trace).toHaveLength(starter.trace.length);
  expect(doc.invariants.some((i: { held: boolean }) => !i.held)).toBe(true);
  expect(doc.ledger.emails).toHaveLength(2);
  // What the document says is enough to replay the run exactly.
  const again = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: doc.variant, seed: doc.seed, faults: doc.faults, choices: doc.choices });
  expect(again.traceHash, replayHint(again)).toBe(doc.traceHash);
});

test('JSON: bigints and infinities in event data survive as strings instead of throwing or turning null', () => {
  const odd = { ...starter, trace: [{ ...starter.trace[0]!, data: { big: 12n, lease: Infinity, neg: -Infinity } }] };
  const doc = JSON.parse(traceToJson(odd));
  expect(doc.trace[0].data).toEqual({ big: '12', lease: 'infinity', neg: '-infinity' });
});

test('Mermaid: participants in swimlane order, one arrow per message, the crash as a note', () => {
  const text = traceToMermaid(starter, scenario.actors);
  const lines = text.trimEnd().split('\n');
  expect(lines[0]).toBe('sequenceDiagram');
  const participants = lines.filter((l) => l.startsWith('  participant ')).map((l) => l.replace(/^ {2}participant p\d+ as /, ''));
  expect(participants).toEqual(scenario.actors.map((a) => escapeMermaid(a)));
  expect(participants).toEqual(['queue', 'worker-1', 'worker-2', 'postgres', 'email']);

  const messages = starter.trace.filter((e) => e.target && ['call', 'reply', 'receive', 'ack', 'publish', 'db', 'db-error', 'timeout'].includes(e.type));
  const arrows = lines.filter((l) => ARROW.test(l));
  expect(arrows).toHaveLength(messages.length);
  // The first call goes from worker-1 (p1) to email (p4); its reply comes back dashed.
  expect(arrows).toContain('  p1->>p4: send receipt for order 1042 to ada@example.com — e-mail em_1 sent');
  expect(arrows.some((l) => /^ {2}p4-->>p1: /.test(l))).toBe(true);
  // Two receipts: two calls to email.
  expect(arrows.filter((l) => /->>p4: send receipt/.test(l))).toHaveLength(2);

  const crash = lines.find((l) => l.startsWith('  Note over p1: 💥'));
  expect(crash).toMatch(/worker-1 crashes just before its 1st queue\.ack step/);
  expect(lines.some((l) => /^ {2}Note over p1: .*restarts/.test(l))).toBe(true);
  expect(lines.at(-1)).toMatch(/^ {2}Note over p0,p4: Violated#58; /);
  // Every line is one statement Mermaid knows.
  for (const l of lines.slice(1)) expect(l).toMatch(/^ {2}(%% |participant p\d+ as |p\d+(->>|-->>|-x)p\d+: |Note over p\d+(,p\d+)?: )/);
});

test('Mermaid: SQL arrows go to postgres in the solution, and the verdict note says it held', () => {
  const text = traceToMermaid(solution, scenario.actors);
  expect(text).toMatch(/^ {2}p[12]->>p3: .*INSERT INTO operations/m);
  expect(text.trimEnd().split('\n').at(-1)).toBe('  Note over p0,p4: Held#58; every invariant kept');
});

test('Mermaid escaping: run text cannot end a line, start a statement or smuggle HTML', () => {
  expect(escapeMermaid('a;b#c<d>\nNote over p0: x %% y')).toBe('a#59;b#35;c#60;d#62; Note over p0#58; x #37;#37; y');
  expect(escapeMermaid('x'.repeat(500)).length).toBeLessThanOrEqual(140);
  const hostile = 'done;\nNote over p0: injected <script>alert(1)</script> #35; %% end';
  const evil: RunResult = {
    ...starter,
    trace: starter.trace.map((e) => (e.type === 'call' ? { ...e, text: hostile } : e.type === 'crash' ? { ...e, text: hostile } : e)),
  };
  const text = traceToMermaid(evil, scenario.actors);
  const lines = text.trimEnd().split('\n');
  expect(lines).toHaveLength(traceToMermaid(starter, scenario.actors).trimEnd().split('\n').length);
  expect(lines.some((l) => l.startsWith('Note over p0: injected'))).toBe(false);
  expect(text).not.toMatch(/<script>|;\s*$/m);
  for (const l of lines.slice(1)) {
    const body = l.replace(/^ {2}(participant p\d+ as |p\d+(->>|-->>|-x)p\d+: |Note over p\d+(,p\d+)?: |%% )/, '');
    // Outside entity codes, no character Mermaid treats as syntax.
    expect(body.replace(/#\d+;/g, '')).not.toMatch(/[#;<>%]/);
  }
});

describe('replaying an export with the CLI (npm run sim -- replay)', () => {
  const mine = `// my attempt\n${scenario.variants.starter.code}`;
  let dir: string;
  let mineRun: RunResult;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eo-replay-'));
    mineRun = await runScenario(sim.db, { scenario, code: mine, variant: 'your code', seed: 5, faults: scenario.demo.faults });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = (...args: string[]) => {
    const r = spawnCli(args);
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  test("the learner's own code travels in the export; the starter's and the solution's do not (they are the scenario's)", () => {
    expect(JSON.parse(traceToJson(mineRun, mine)).code).toBe(mine);
    expect(JSON.parse(traceToJson(mineRun, mine)).codeHash).toBe(codeHashOf(mine));
    expect(JSON.parse(traceToJson(starter, scenario.variants.starter.code))).not.toHaveProperty('code');
    expect(JSON.parse(traceToJson(solution, scenario.variants.solution.code))).not.toHaveProperty('code');
  });

  test('an export of your own code replays to the same trace hash, and says so', () => {
    const file = write('mine.trace.json', traceToJson(mineRun, mine));
    const human = cli('replay', file);
    expect(human.code, human.err + human.out).toBe(0);
    expect(human.out).toMatch(/^seed 5 · receipt-redelivery · variant your code · replaying /);
    expect(human.out).toContain(`reproduced: the same trace hash as the export (${mineRun.traceHash.slice(0, 16)})`);
    expect(human.out).toContain('VIOLATED');
    const json = JSON.parse(cli('replay', file, '--json').out);
    expect(json).toMatchObject({ reproduced: true, traceHash: mineRun.traceHash, exportedTraceHash: mineRun.traceHash, verdict: 'violated', seed: 5 });
  }, 240_000);

  test('edited code in the export does not reproduce it: exit 1, and the two hashes named; code that does not load says so', () => {
    const edited = { ...JSON.parse(traceToJson(mineRun, mine)), code: scenario.variants.solution.code };
    const r = cli('replay', write('edited.trace.json', JSON.stringify(edited)));
    expect(r.code, r.err + r.out).toBe(1);
    expect(r.out).toMatch(/NOT reproduced: the code in the export was modified after it was exported .*\(it ended violated, this run held\)/);
    const broken = cli('replay', write('broken.trace.json', JSON.stringify({ ...edited, code: 'export async function handleMessage( {' })));
    expect(broken.code).toBe(1);
    expect(broken.out).toContain('NOT reproduced: the code did not load, so nothing ran.');
    expect(broken.out).not.toMatch(/this run's is\s+—/);
  }, 240_000);

  test('--variant runs other code on the exported schedule: its verdict, not a failed reproduction; the replay line reruns it', () => {
    const file = write('mine.trace.json', traceToJson(mineRun, mine));
    const fix = write('fix.ts', scenario.variants.solution.code);
    const r = cli('replay', file, '--variant', fix);
    expect(r.code, r.err + r.out).toBe(0);
    expect(r.out).toContain('other code on the exported schedule: HELD (the exported run ended violated)');
    expect(JSON.parse(cli('replay', file, '--variant', fix, '--json').out)).toMatchObject({ reproduced: null, verdict: 'held' });
    // A violated replay prints a command that works: replay the file, not "run --variant 'your code'".
    const again = cli('replay', file);
    const line = again.out.split('\n').find((l) => l.startsWith('replay: '));
    expect(line).toBe(`replay: npm run -s sim -- replay ${file}`);
    expect(again.out).toMatch(/\(event \d+\)/);
  }, 240_000);

  test('an export without the code, or a file that is no export, is refused with what to do', () => {
    const { code: _dropped, ...noCode } = JSON.parse(traceToJson(mineRun, mine));
    const a = cli('replay', write('old.trace.json', JSON.stringify(noCode)));
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/holds no code: pass --variant path\.ts/);
    const b = cli('replay', write('plan.json', JSON.stringify(scenario.demo.faults)));
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/is not a trace the lab exported/);
    const c = cli('replay', join(dir, 'missing.json'));
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/no such file/);
  }, 240_000);
});
