/**
 * The loop guard (simulations/learner/loop-guard.ts): learner code that never yields is stopped
 * inside its realm, so the tab's worker keeps its database. The budget here stands in for the
 * worker's clock: `held` is how long the code has held the thread.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { Parser } from 'acorn';
import { GUARD_NAME, guardLoops, hostTurn, setLoopBudget, stuckPending, takeStuck, StuckCodeError } from '../simulations/learner/loop-guard';
import { exportedFunction, learnerLocation, loadLearnerModule, LearnerCodeError } from '../simulations/learner/compile';

let held = 0;
function budget(limitMs = 1_000, minCalls = 10_000) {
  setLoopBudget({ heldMs: () => held, limitMs, minCalls });
}

afterEach(() => {
  setLoopBudget(null);
  takeStuck();
  held = 0;
});

/** Call `name` of `source` (TypeScript, as the lab sends it), with `args`. */
async function call(source: string, ...args: unknown[]): Promise<unknown> {
  const mod = loadLearnerModule(source);
  return exportedFunction<(...a: unknown[]) => Promise<unknown>>(mod, 'handleMessage')(...args);
}

describe('guardLoops', () => {
  const cases = [
    'for (;;) x;',
    'while (a) { b(); }',
    'do c(); while (d);',
    'for (const k in o) if (k) continue;',
    'for (const v of xs) label: for (;;) break label;',
    'const f = (y) => ({ y });',
    'const g = async (y) => (await y, y);',
    "function h() { 'use strict'; return 1; }",
    'class A { get x() { return 1; } static m() {} }',
    'for (;;) () => y',
    'if (a) while (b) c(); else d();',
  ];
  test.each(cases)('%s: still parses, with a guard in every loop and function body, on the same lines', (code) => {
    const out = guardLoops(code + '\n// end');
    expect(() => Parser.parse(out, { ecmaVersion: 'latest' })).not.toThrow();
    expect(out).toContain(GUARD_NAME);
    expect(out.split('\n').length).toBe(2);
  });

  test("a directive stays first, so it stays a directive", () => {
    expect(guardLoops("function h() { 'use strict'; return 1; }")).toMatch(/\{ 'use strict';__effectivelyOnceGuard__\(\);/);
  });

  test('code that does not parse comes back as it was (evaluating it raises the real SyntaxError)', () => {
    expect(guardLoops('while (')).toBe('while (');
  });

  test('the guard’s name is refused in learner code', async () => {
    await expect(call(`export async function handleMessage() { const ${GUARD_NAME} = () => {}; while (true) ${GUARD_NAME}(); }`)).rejects.toThrow(LearnerCodeError);
  });
});

describe('the guard in the learner’s realm', () => {
  test('a loop that never ends is stopped once it has held the thread past the budget, and keeps being stopped', async () => {
    budget();
    held = 1_500;
    const error = await call(`export async function handleMessage() { while (true) {} }`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StuckCodeError);
    expect(stuckPending()).toBe(true);
    // Tripped, every later call into learner code throws at once, until the host takes the trip.
    await expect(call(`export async function handleMessage() { return 'ack'; }`)).rejects.toBeInstanceOf(StuckCodeError);
    expect(takeStuck()).toBe(1_500);
    expect(await call(`export async function handleMessage() { return 'ack'; }`)).toBe('ack');
  });

  test('a catch inside the loop does not keep it going', async () => {
    budget();
    held = 5_000;
    await expect(
      call(`export async function handleMessage() {
  for (;;) { try { while (true) {} } catch { /* swallowed */ } }
}`),
    ).rejects.toBeInstanceOf(StuckCodeError);
    expect(takeStuck()).toBe(5_000);
  });

  test('loops in code made by eval and Function are guarded too, and no Compartment escapes the guard', async () => {
    budget();
    held = 2_000;
    await expect(call(`export async function handleMessage() { return Function('for (;;) {}')(); }`)).rejects.toBeInstanceOf(StuckCodeError);
    takeStuck();
    await expect(call(`export async function handleMessage() { return (0, eval)('while (1) {}'); }`)).rejects.toBeInstanceOf(StuckCodeError);
    takeStuck();
    await expect(call(`export async function handleMessage() { return new (globalThis as any).Compartment().evaluate('for (;;) {}'); }`)).rejects.toThrow(
      /Compartment is not available in the simulation/,
    );
  });

  test('a native loop calling learner code (forEach over a million items) is stopped through its callback', async () => {
    budget();
    held = 2_000;
    await expect(call(`export async function handleMessage() { new Array(1e7).fill(0).forEach(() => 1); return 'done'; }`)).rejects.toBeInstanceOf(
      StuckCodeError,
    );
    takeStuck();
  });

  test('within the budget nothing trips: a long but finite loop, and code that held the thread long but made few calls', async () => {
    budget();
    held = 500;
    expect(await call(`export async function handleMessage() { let s = 0; for (let i = 0; i < 200000; i++) s += i; return s; }`)).toBe(19999900000);
    // Past the time but under the call count since the host's last turn: a thread starved of
    // CPU, not a stuck loop.
    hostTurn();
    held = 60_000;
    expect(await call(`export async function handleMessage() { let s = 0; for (let i = 0; i < 5000; i++) s += i; return s; }`)).toBe(12497500);
    expect(takeStuck()).toBeNull();
  });

  test('without a budget (the CLI: its threads have their own watchdog) the guard never trips', async () => {
    held = 1e9;
    expect(await call(`export async function handleMessage() { let s = 0; for (let i = 0; i < 300000; i++) s++; return s; }`)).toBe(300000);
    expect(stuckPending()).toBe(false);
  });

  test('an error still names the learner’s line after the rewrite', async () => {
    const error = (await call(`export async function handleMessage() {
  for (let i = 0; i < 1; i++) {
    const f = () => { throw new Error('here'); };
    f();
  }
}`).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('here');
    expect(learnerLocation(error)?.line).toBe(3);
  });
});
