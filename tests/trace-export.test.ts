/**
 * Trace export on real runs of receipt-redelivery's demonstration: the JSON carries the whole run
 * and replays to the same trace hash; the Mermaid diagram has the swimlane participants in order,
 * one arrow per message, the crash as a note, and text from the run cannot break out of its line.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runScenario, type RunResult } from '../simulations/run';
import { scenarioById } from '../simulations/scenarios/index';
import { escapeMermaid, traceToJson, traceToMermaid, TRACE_EXPORT_FORMAT } from '../simulations/trace-export';
import { openSimDb, replayHint } from './helpers/sim-db';

let sim: Awaited<ReturnType<typeof openSimDb>>;
const scenario = scenarioById('receipt-redelivery');
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
