/**
 * Turns learner TypeScript into a module the engine can call: sucrase strips types and rewrites
 * imports (keeping line numbers), and the only importable module is `'effectively-once'`.
 * This does not sandbox anything by itself: in the browser it runs inside the Web Worker sandbox.
 */
import { transform } from 'sucrase';
import * as learnerApi from './learner-api';

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

/** Lines `new Function` puts before the body: `function anonymous(a,b,c\n) {\n`. */
const FUNCTION_HEADER_LINES = 2;

const MODULES: Record<string, unknown> = { 'effectively-once': learnerApi };

const cache = new Map<string, Record<string, unknown>>();

/** Compile and load `source`; the module's exports. Cached by source text. */
export function loadLearnerModule(source: string): Record<string, unknown> {
  const hit = cache.get(source);
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
  const exports: Record<string, unknown> = {};
  const module = { exports };
  const require = (name: string) => {
    if (name in MODULES) return MODULES[name];
    throw new LearnerCodeError(`Cannot import '${name}': only 'effectively-once' is available here`, undefined, undefined, 'load');
  };
  try {
    const fn = new Function('exports', 'require', 'module', `${code}\n//# sourceURL=${LEARNER_FILE}`);
    fn(exports, require, module);
  } catch (err) {
    if (err instanceof LearnerCodeError) throw err;
    const e = err as Error;
    const loc = learnerLocation(e);
    throw new LearnerCodeError(`${e.name}: ${e.message}`, loc?.line, loc?.column, 'load');
  }
  const result = module.exports as Record<string, unknown>;
  if (cache.size > 64) cache.clear();
  cache.set(source, result);
  return result;
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
  return f as F;
}
