/**
 * Turns learner TypeScript into a module the engine can call: sucrase strips types and rewrites
 * imports (keeping line numbers), and the only importable module is `'effectively-once'`. The
 * module body is evaluated in the learner's realm (./realm.ts): a SES compartment with a frozen
 * global object, after `lockdown()` has frozen every intrinsic the host shares with it. So the code
 * reaches nothing but what it is handed (env, a message, the frozen `effectively-once` module), in
 * the tab and in the CLI alike.
 */
import { transform } from 'sucrase';
import * as learnerApi from './api';
import { learnerCompartment } from './realm';
import { StuckCodeError } from './loop-guard';

/** A compile or load failure, with the learner's line when known. */
export class LearnerCodeError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
    readonly phase: 'syntax' | 'load' | 'shape' = 'syntax',
  ) {
    super(message);
    this.name = 'LearnerCodeError';
  }
}

/** The file name learner code carries in stack traces. */
export const LEARNER_FILE = 'learner.ts';

/** The wrapper put around a module body; its one line comes before the learner's first. */
const BODY_HEADER = '(function (exports, require, module) {\n';
const FUNCTION_HEADER_LINES = 1;

/**
 * The modules learner code may import, frozen with everything reachable from them (lib's
 * functions included): a property added to `opKey` would otherwise be memory shared by every
 * process and run. Made on first use, after the realm is locked down.
 */
let modules: Readonly<Record<string, unknown>> | null = null;
function importable(): Readonly<Record<string, unknown>> {
  modules ??= harden({ 'effectively-once': { ...learnerApi } });
  return modules;
}

type ModuleBody = (exports: Record<string, unknown>, require: (name: string) => unknown, module: { exports: Record<string, unknown> }) => void;

/** Compiled bodies by source text: sucrase and the compartment's evaluation run once per text. */
const compiled = new Map<string, ModuleBody>();

/**
 * Each simulated process keeps its memory to itself. A module-level `new Set()` in learner code is
 * a worker's memory: worker-1 and worker-2 are two machines and do not share it, a crash wipes it,
 * and a rerun (the next run, or the next schedule of an exploration) starts without it. So every
 * load evaluates the module afresh, and every process incarnation that calls into it gets its own
 * evaluation (the engine says which one is running: `enterProcess`). Without this, an in-memory
 * "already sent?" set held across workers, crashes and runs, and passed.
 */
interface Instances {
  evaluate(): Record<string, unknown>;
  /** The load's own evaluation, taken by the first process that calls in. */
  spare: Record<string, unknown> | null;
  byProcess: WeakMap<object, Record<string, unknown>>;
}
const instancesOf = new WeakMap<Record<string, unknown>, Instances>();

/** The process incarnation running now (its env), set by the engine each time it hands one control. */
let running: object | null = null;

/** The engine hands control to the process incarnation `token` (null: to no process). */
export function enterProcess(token: object | null): void {
  running = token;
}

function compile(source: string): ModuleBody {
  const hit = compiled.get(source);
  if (hit) return hit;
  let code: string;
  try {
    code = transform(source, { transforms: ['typescript', 'imports'], filePath: LEARNER_FILE }).code;
  } catch (err) {
    const e = err as Error & { loc?: { line: number; column: number } };
    const m = /\((\d+):(\d+)\)/.exec(e.message);
    const line = e.loc?.line ?? (m ? Number(m[1]) : undefined);
    const column = e.loc?.column ?? (m ? Number(m[2]) : undefined);
    throw new LearnerCodeError(`Syntax error: ${e.message.replace(/^Error transforming [^:]*: /, '')}`, line, column, 'syntax');
  }
  let body: ModuleBody;
  try {
    // The closing `})` on a line of its own: a last-line `//` comment in the code stays a comment.
    body = learnerCompartment().evaluate(`${BODY_HEADER}${code}\n})\n//# sourceURL=${LEARNER_FILE}`) as ModuleBody;
  } catch (err) {
    const e = err as Error;
    const loc = learnerLocation(e);
    throw new LearnerCodeError(`${e.name}: ${e.message}`, loc?.line, loc?.column, 'load');
  }
  if (compiled.size > 64) compiled.clear();
  compiled.set(source, body);
  return body;
}

/** The `require` the module body gets (sucrase turns its imports into calls of it); frozen on first use. */
let requireModule: ((name: string) => unknown) | null = null;
function requireFor(): (name: string) => unknown {
  requireModule ??= harden((name: string) => {
    const table = importable();
    if (typeof name === 'string' && Object.hasOwn(table, name)) return table[name];
    throw new LearnerCodeError(`Cannot import '${String(name)}': only 'effectively-once' is available here`, undefined, undefined, 'load');
  });
  return requireModule;
}

/**
 * Compile and load `source`: the exports of a fresh evaluation (compiling is cached by source
 * text; evaluating is not). Functions taken from it with `exportedFunction` run each process's calls
 * in that process's own evaluation of the module.
 */
export function loadLearnerModule(source: string): Record<string, unknown> {
  const body = compile(source);
  const evaluate = () => {
    const module = { exports: {} as Record<string, unknown> };
    body(module.exports, requireFor(), module);
    return module.exports;
  };
  let first: Record<string, unknown>;
  try {
    first = evaluate();
  } catch (err) {
    // A module stuck while it loads is stuck, not broken: the host answers as for a stuck run.
    if (err instanceof LearnerCodeError || err instanceof StuckCodeError) throw err;
    const loc = learnerLocation(err);
    const said = err instanceof Error ? `${err.name}: ${err.message}` : `Your module threw ${typeof err === 'string' ? JSON.stringify(err) : String(err)} while loading`;
    throw new LearnerCodeError(said, loc?.line, loc?.column, 'load');
  }
  instancesOf.set(first, { evaluate, spare: first, byProcess: new WeakMap() });
  return first;
}

/** The evaluation of a loaded module that the running process calls into. */
function instanceFor(mod: Record<string, unknown>): Record<string, unknown> {
  const instances = instancesOf.get(mod);
  if (!instances || running === null) return mod;
  let own = instances.byProcess.get(running);
  if (!own) {
    own = instances.spare ?? instances.evaluate();
    instances.spare = null;
    instances.byProcess.set(running, own);
  }
  return own;
}

/** The learner's line and column in an error's stack, if the error passed through learner code. */
export function learnerLocation(err: unknown): { line: number; column: number } | null {
  const stack = err instanceof Error ? err.stack : undefined;
  if (!stack) return null;
  const m = new RegExp(`${LEARNER_FILE.replace('.', '\\.')}:(\\d+):(\\d+)`).exec(stack);
  if (!m) return null;
  return { line: Math.max(1, Number(m[1]) - FUNCTION_HEADER_LINES), column: Number(m[2]) };
}

/** The exported function `name`, or a clear error naming what is missing. */
export function exportedFunction<F>(mod: Record<string, unknown>, name: string): F {
  const f = mod[name];
  if (typeof f !== 'function') {
    throw new LearnerCodeError(`Your code must export a function named ${name} (export async function ${name}(…) { … })`, undefined, undefined, 'shape');
  }
  if (!instancesOf.has(mod)) return f as F;
  // Called by a process: that process's own evaluation of the module, so its own memory.
  return function (this: unknown, ...args: unknown[]) {
    const own = instanceFor(mod)[name];
    if (typeof own !== 'function') throw new TypeError(`${name} is not a function in this evaluation of your module`);
    return own.apply(this, args);
  } as F;
}
