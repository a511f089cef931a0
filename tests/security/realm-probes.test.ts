/**
 * The learner's realm as the CLI and the tab load learner code (simulations/learner/compile.ts,
 * ./realm.ts): probes written as a learner would write them. Loading the first module locks this
 * test process down (SES lockdown), as it locks the CLI and the database worker down.
 *
 * Each probe failed before the realm existed: learner code ran with `new Function` in the host's
 * own global scope, where all of this was reachable or writable.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { exportedFunction, loadLearnerModule } from '../../simulations/learner/compile';
import { runScenario } from '../../simulations/run/run';
import { lessonById } from '../../simulations/lessons/index';
import { openSimDb } from '../helpers/sim-db';

/** What `expression` gives inside learner code: "ok: <typeof / value>" or "threw: <name: message>". */
function inRealm(expression: string): string {
  const probe = exportedFunction<() => unknown>(loadLearnerModule(`export function probe() {\n  return ${expression};\n}\n`), 'probe');
  try {
    return `ok: ${String(probe())}`;
  } catch (err) {
    return `threw: ${(err as Error).name}: ${(err as Error).message}`;
  }
}

describe('no ambient authority: what the host has is absent from the learner realm', () => {
  // Host globals Node has (the browser's own — FontFace, requestAnimationFrame, navigator … — are
  // probed in the lab in Chromium: tests/e2e/realm.e2e.mjs). In a compartment each is absent
  // unless endowed, whatever the host is.
  const absent = [
    'performance',
    'Event',
    'setTimeout',
    'setInterval',
    'queueMicrotask',
    'setImmediate',
    'fetch',
    'crypto',
    'process',
    'Buffer',
    'structuredClone',
    'WebAssembly',
    'SharedArrayBuffer',
    'Atomics',
    'MessageChannel',
  ];
  for (const name of absent) {
    test(`typeof ${name} is undefined`, () => {
      expect(inRealm(`typeof globalThis.${name} + ' ' + typeof ${name}`)).toBe('ok: undefined undefined');
    });
  }

  test("Intl formats what it is given, with no machine defaults: 'en-US' and UTC unless named; no date means no host clock", () => {
    expect(inRealm("new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(Date.UTC(2026, 0, 6, 3)))")).toBe('ok: 2026-01-05');
    expect(inRealm('Intl.DateTimeFormat().resolvedOptions().timeZone + " " + new Intl.DateTimeFormat().resolvedOptions().locale')).toBe('ok: UTC en-US');
    expect(inRealm('new Intl.NumberFormat().format(1234.5) + " " + Intl.NumberFormat("de-DE").format(1234.5)')).toBe('ok: 1,234.5 1.234,5');
    expect(inRealm('new Intl.DateTimeFormat().format()')).toMatch(/^threw: SandboxError: Intl\.DateTimeFormat\(\)\.format\(\) with no date is not available/);
    expect(inRealm('new Intl.DateTimeFormat().formatToParts()')).toMatch(/^threw: SandboxError: /);
  });

  test('the clock and randomness throw with a hint; dates from numbers still work', () => {
    expect(inRealm('Date.now()')).toMatch(/^threw: SandboxError: Date\.now\(\) is not available in the simulation: use env\.clock\.now\(\)/);
    expect(inRealm('new Date()')).toMatch(/^threw: SandboxError: new Date\(\) is not available/);
    expect(inRealm('Math.random()')).toMatch(/^threw: SandboxError: Math\.random\(\) is not available in the simulation: use env\.random/);
    expect(inRealm('new Date(0).constructor.now()')).toMatch(/^threw: /);
    expect(inRealm('new Date(Date.UTC(2024, 0, 2)).toISOString()')).toBe('ok: 2024-01-02T00:00:00.000Z');
    expect(inRealm('new Date(0) instanceof Date')).toBe('ok: true');
  });

  test("no way to the host's global or its modules: Function's constructor, eval, import()", () => {
    expect(inRealm('(function () {}).constructor("return typeof process")()')).toMatch(/^threw: /);
    expect(inRealm('Function("return typeof process")()')).toBe('ok: undefined');
    expect(inRealm('(0, eval)("typeof process")')).toBe('ok: undefined');
    // An import() in evaluated text is refused before it runs.
    expect(inRealm('(0, eval)("imp" + "ort(\'node:child_process\')")')).toMatch(/^threw: SyntaxError: .*import/i);
    expect(() => loadLearnerModule("import { execSync } from 'node:child_process';\nexport function f() { execSync('true'); }\n")).toThrow(/Cannot import 'node:child_process'/);
  });
});

describe('learner code cannot change what the host shares with it', () => {
  test('a prototype write throws, and the host never sees it', () => {
    expect(inRealm('(Object.prototype.polluted = 1)')).toMatch(/^threw: TypeError: Cannot add property polluted, object is not extensible/);
    expect(inRealm('(Array.prototype.filter = function () { return []; })')).toMatch(/^threw: TypeError: Cannot assign to read only property 'filter'/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect([1, 2, 3].filter((n) => n > 1)).toEqual([2, 3]);
  });

  test('no memory outside a module evaluation: the global object and the effectively-once module are frozen', () => {
    expect(inRealm('(globalThis.seen = new Set())')).toMatch(/^threw: TypeError: /);
    const mod = loadLearnerModule("import { opKey } from 'effectively-once';\nexport function probe() { opKey.seen = new Set(); }\n");
    expect(() => exportedFunction<() => void>(mod, 'probe')()).toThrow(/not extensible/);
  });
});

describe('runs after a poisoning attempt are judged as if it never happened', () => {
  let sim: Awaited<ReturnType<typeof openSimDb>>;
  const scenario = lessonById('receipt-redelivery');
  const base = { scenario, seed: scenario.demo.seed, faults: scenario.demo.faults };
  beforeAll(async () => {
    sim = await openSimDb();
  });
  afterAll(() => sim.close());

  test('a patched Array.prototype.filter or every cannot turn the starter into "held"; the solution still holds after', async () => {
    // The starter, plus an attempt to blind the judge once its receipt is sent.
    const forged = scenario.variants.starter.code.replace(
      "return 'ack';",
      "try { Array.prototype.filter = function () { return []; }; } catch {}\n  try { Array.prototype.every = function () { return true; }; } catch {}\n  return 'ack';",
    );
    expect(forged).not.toBe(scenario.variants.starter.code);
    const run = await runScenario(sim.db, { ...base, code: forged, variant: 'forged' });
    expect(run.verdict).toBe('violated');
    expect(run.invariants.find((i) => i.id === 'at-most-one-receipt')).toMatchObject({ held: false });
    const solution = await runScenario(sim.db, { ...base, code: scenario.variants.solution.code, variant: 'solution' });
    expect(solution.verdict).toBe('held');
  });

  test('Object.prototype.polluted = 1 is a load error with its line, not an engine stack', async () => {
    const run = await runScenario(sim.db, { ...base, code: `// first line\nObject.prototype.polluted = 1;\n${scenario.variants.solution.code}`, variant: 'polluting' });
    expect(run.verdict).toBe('error');
    expect(run.error).toMatchObject({ phase: 'load', line: 2, message: expect.stringMatching(/^TypeError: Cannot add property polluted, object is not extensible/) });
    expect(run.error?.message).not.toMatch(/xstate|node_modules/);
    const after = await runScenario(sim.db, { ...base, code: scenario.variants.starter.code, variant: 'starter' });
    expect(after.verdict).toBe('violated');
  });

  test('Math.random(), Date.now() and crypto.subtle in a handler: the same trace hash on every run of a seed, and a message naming the way', async () => {
    const code = scenario.variants.solution.code.replace(
      /export async function handleMessage\(([^)]*)\) \{/,
      (head) => `${head}\n  for (const read of [() => Math.random(), () => Date.now(), () => crypto.subtle.digest('SHA-256', new Uint8Array(1))]) {\n    try { env.log(String(read())); } catch (e) { env.log(String(e)); }\n  }`,
    );
    expect(code).not.toBe(scenario.variants.solution.code);
    const a = await runScenario(sim.db, { ...base, code, variant: 'reads the host' });
    const b = await runScenario(sim.db, { ...base, code, variant: 'reads the host' });
    expect(a.verdict).toBe('held');
    expect(b.traceHash).toBe(a.traceHash);
    const logs = a.trace.filter((e) => e.type === 'log').map((e) => e.text);
    expect(logs.some((t) => t.includes('Math.random() is not available in the simulation: use env.random'))).toBe(true);
    expect(logs.some((t) => t.includes('Date.now() is not available in the simulation: use env.clock.now()'))).toBe(true);
    // A host global the compartment lacks reads as undefined there (SES's scope terminator).
    expect(logs.some((t) => t.includes("TypeError: Cannot read properties of undefined (reading 'subtle')")), logs.join('\n')).toBe(true);
  });
});
