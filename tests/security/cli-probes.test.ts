/**
 * The CLI as strict as the tab: probe files given to `run`, `explore --workers 2` and `replay`,
 * each a spawned CLI. Learner code there reaches no process, module or file, cannot end the
 * command or keep it hanging, leaves a rejected promise without ending it, and a received export
 * whose code was edited is not "reproduced".
 *
 * Each failed before the realm: `process.getBuiltinModule` ran a shell command, `process.exit(0)`
 * ended the command with no output and exit 0, a rejected promise ended it with Node's raw
 * reason, `explore --workers 2` never stopped a `while (true) {}`, and an export edited without
 * changing its trace said "reproduced".
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { lessonById } from '../../simulations/lessons/index';
import { runScenario } from '../../simulations/run/run';
import { traceToJson } from '../../simulations/run/trace-export';
import { spawnCli } from '../helpers/cli';
import { openSimDb } from '../helpers/sim-db';

// Each call boots PGlite in a fresh process (two for --workers 2): tens of seconds under load.
vi.setConfig({ testTimeout: 400_000 });

const scenario = lessonById('receipt-redelivery');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'eo-cli-probe-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sim(...args: string[]) {
  const r = spawnCli(args, 300_000);
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/**
 * A handler that tries every way out it knows, logs what each gave, and would leave a marker
 * file behind if any reached the host. Then it behaves as the solution does.
 */
function escapeAttempts(marker: string): string {
  const m = JSON.stringify(marker);
  return `import { claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

const attempts: Record<string, () => unknown> = {
  'process.getBuiltinModule': () => (process as any).getBuiltinModule('node:fs').writeFileSync(${m}, 'getBuiltinModule'),
  'process.exit': () => process.exit(0),
  'globalThis.process': () => (globalThis as any).process.exit(0),
  'require': () => (globalThis as any).require('node:fs').writeFileSync(${m}, 'require'),
  'Function constructor': () => (function () {}).constructor('return process')().exit(0),
  'eval import': () => (0, eval)('imp' + 'ort("node:fs")'),
};

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  for (const [name, attempt] of Object.entries(attempts)) {
    try {
      const got = attempt();
      env.log('probe ' + name + ': reached ' + typeof got);
    } catch (e) {
      env.log('probe ' + name + ': blocked, ' + String(e));
    }
  }
  const key = 'receipt:' + msg.orderId;
  const c = await claim(env.db, key, 30);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, 'sent');
  return 'ack';
}
`;
}

test('run: process, require, Function and eval reach nothing; the run ends with its verdict', () => {
  const marker = join(dir, 'reached-run');
  const r = sim('run', 'receipt-redelivery', '--variant', write('escape.ts', escapeAttempts(marker)), '--trace');
  expect(existsSync(marker)).toBe(false);
  expect(r.code, r.err + r.out).toBe(0);
  for (const name of ['process.getBuiltinModule', 'process.exit', 'globalThis.process', 'require', 'Function constructor', 'eval import']) {
    expect(r.out, name).toContain(`probe ${name}: blocked, `);
    expect(r.out, name).not.toContain(`probe ${name}: reached`);
  }
  expect(r.out).toMatch(/^HELD after \d+ steps/m);
});

test("an import() hidden in eval is refused when the module loads, with a message; nothing runs", () => {
  const marker = join(dir, 'reached-eval');
  const code = `${scenario.variants.starter.code}\n(0,eval)("import('node:child_process')").then((cp) => cp.execSync(${JSON.stringify(`touch ${marker}`)}));\n`;
  const r = sim('run', 'receipt-redelivery', '--variant', write('eval-import.ts', code));
  expect(existsSync(marker)).toBe(false);
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/your code did not load: .*import/i);
});

test('Object.prototype.polluted = 1: a clear load error with its line, not an XState stack', () => {
  const r = sim('run', 'receipt-redelivery', '--variant', write('polluted.ts', `Object.prototype.polluted = 1;\n${scenario.variants.starter.code}`));
  expect(r.code).toBe(1);
  expect(r.out).toContain('your code did not load: TypeError: Cannot add property polluted, object is not extensible (line 1)');
  expect(r.out + r.err).not.toMatch(/xstate|node_modules|\n\s+at /);
});

test('rejected promises left unhandled and queueMicrotask: the run still ends with its verdict, the rejection is reported', () => {
  const code = scenario.variants.starter.code.replace(
    "return 'ack';",
    "Promise.reject(Object.create(null));\n  Promise.reject(new Error('left alone'));\n  try { queueMicrotask(() => { throw 1; }); } catch (e) { env.log(String(e)); }\n  return 'ack';",
  );
  expect(code).not.toBe(scenario.variants.starter.code);
  const r = sim('run', 'receipt-redelivery', '--variant', write('rejects.ts', code));
  expect(r.code, r.err).toBe(0);
  expect(r.out).toMatch(/^VIOLATED after \d+ steps/m);
  expect(r.err).toContain('warning: a promise was rejected and never handled: Error: left alone');
  expect(r.err).toContain('warning: a promise was rejected and never handled: {}');
});

test('the same seed gives the same trace hash whatever the code reads: Math.random(), Date.now(), crypto.subtle', () => {
  const code = scenario.variants.starter.code.replace(
    "return 'ack';",
    "for (const read of [() => Math.random(), () => Date.now(), () => crypto.subtle.digest('SHA-256', new Uint8Array(1))]) {\n    try { env.log(String(read())); } catch (e) { env.log(String(e)); }\n  }\n  return 'ack';",
  );
  const file = write('host-reads.ts', code);
  const a = JSON.parse(sim('run', 'receipt-redelivery', '--variant', file, '--json').out);
  const b = JSON.parse(sim('run', 'receipt-redelivery', '--variant', file, '--json').out);
  expect(a.verdict).toBe('violated');
  expect(b.traceHash).toBe(a.traceHash);
});

test('explore --workers 2 stops a handler that never yields, with a clear message', () => {
  const loop = write('loop.ts', 'export async function handleMessage(msg, env) {\n  while (true) {}\n}\n');
  const r = sim('explore', 'receipt-redelivery', '--variant', loop, '--runs', '4', '--workers', '2');
  expect(r.signal, 'the command was still running when the test gave up on it').not.toBe('SIGTERM');
  expect(r.code).not.toBe(0);
  expect(r.err).toContain(`error: your code in ${loop} ran for 10 s without giving the thread back`);
});

test("replay: an export's code runs in the realm, and code edited after the export is not 'reproduced', even when its trace is the same", async () => {
  const sim2 = await openSimDb();
  const mine = `// my attempt\n${scenario.variants.starter.code}`;
  let json: string;
  try {
    const run = await runScenario(sim2.db, { scenario, code: mine, variant: 'your code', seed: 5, faults: scenario.demo.faults });
    json = traceToJson(run, mine);
  } finally {
    await sim2.close();
  }
  const doc = JSON.parse(json);
  const marker = join(dir, 'reached-replay');
  // Same steps, same trace: only a branch that never runs in the simulation differs.
  const edited = mine.replace(
    "return 'ack';",
    `if (typeof process !== 'undefined') (process as any).getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x');\n  return 'ack';`,
  );
  expect(edited).not.toBe(mine);
  const r = sim('replay', write('edited.trace.json', JSON.stringify({ ...doc, code: edited })));
  expect(existsSync(marker)).toBe(false);
  expect(r.code, r.err + r.out).toBe(1);
  expect(r.out).toContain('NOT reproduced: the code in the export was modified after it was exported');
  const { codeHash: _dropped, ...unhashed } = doc;
  const s = sim('replay', write('unhashed.trace.json', JSON.stringify(unhashed)));
  expect(s.code).toBe(1);
  expect(s.out).toContain('NOT reproduced: the export carries code but no codeHash');
  const ok = sim('replay', write('mine.trace.json', json));
  expect(ok.code, ok.err + ok.out).toBe(0);
  expect(ok.out).toContain('reproduced: the same trace hash as the export');
});
