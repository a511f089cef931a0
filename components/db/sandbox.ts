/// <reference lib="webworker" />
/**
 * The learner's sandbox inside the database worker. Learner code is compiled with `new Function`
 * in this worker's global scope, so what it can reach is what this scope holds. After PGlite has
 * booted (it fetches its wasm and data once, at boot) `lockDown()`:
 *
 * - removes everything that reaches the network or storage (fetch, XMLHttpRequest, WebSocket,
 *   EventSource, importScripts, indexedDB, caches, BroadcastChannel, navigator.storage), or, where
 *   a property cannot be deleted, overwrites it with a function that throws;
 * - guards the host's clock, timers and randomness (Date.now, performance.now, setTimeout,
 *   setInterval, Math.random, crypto.randomUUID, crypto.getRandomValues): they throw when called
 *   from the learner's code (a `learner.ts` frame calling them), and keep working for PGlite,
 *   XState and the engine, which use them internally (MEMFS timestamps, actor ids) without it
 *   ever reaching a run's outcome.
 *
 * MessageChannel stays: the engine's host tick needs it. The worker keeps private references
 * (`hostClock`) taken before the lock-down for its own progress timing and heartbeat.
 */
import { LEARNER_FILE } from '@/simulations/learner/compile';

const scope = globalThis as unknown as Record<string, unknown>;

/** The worker's own clock and timers, captured before any learner code can run. */
export const hostClock = {
  now: performance.now.bind(performance),
  setTimeout: setTimeout.bind(globalThis),
  clearTimeout: clearTimeout.bind(globalThis),
  setInterval: setInterval.bind(globalThis),
  clearInterval: clearInterval.bind(globalThis),
};

export class SandboxError extends Error {
  constructor(what: string) {
    super(`${what} is not available in the simulation: use env (env.clock.now(), env.sleep(ms), env.random)`);
    this.name = 'SandboxError';
  }
}

const NETWORK_AND_STORAGE = [
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebSocketStream',
  'WebTransport',
  'EventSource',
  'importScripts',
  'indexedDB',
  'caches',
  'BroadcastChannel',
  'Worker',
  'SharedWorker',
  // Chromium's old sandboxed file system: what a worker writes there is still there after a reload.
  'webkitRequestFileSystem',
  'webkitRequestFileSystemSync',
  'webkitResolveLocalFileSystemURL',
  'webkitResolveLocalFileSystemSyncURL',
] as const;

function refuse(what: string): () => never {
  return () => {
    throw new SandboxError(what);
  };
}

/** Remove `name` from `target`, or, failing that, replace it with a function that throws. */
function removeProperty(target: Record<string, unknown>, name: string, what = name): void {
  try {
    delete target[name];
  } catch {
    /* a non-configurable property: overwritten below */
  }
  // The property may live on the prototype chain (WorkerGlobalScope.prototype).
  let proto: object | null = Object.getPrototypeOf(target);
  while (proto && name in target) {
    try {
      delete (proto as Record<string, unknown>)[name];
    } catch {
      /* keep going */
    }
    proto = Object.getPrototypeOf(proto);
  }
  if (name in target) {
    try {
      Object.defineProperty(target, name, { value: refuse(what), configurable: false, writable: false });
    } catch {
      /* nothing more we can do */
    }
  }
}

const learnerFrame = new RegExp(`${LEARNER_FILE.replace('.', '\\.')}:\\d+:\\d+`);

/** How deep the worker is in `asHost` calls. */
let hostDepth = 0;

/**
 * Run `fn`, a synchronous call of the worker's own into PGlite, with the guards open: no learner
 * code can run inside a synchronous call it did not make, so the guards need not walk the stack.
 * PGlite reads the clock hundreds of times a schedule (Postgres timestamps every statement, MEMFS
 * every write); a stack walk each time was a third of an exploration's time in the browser.
 */
export function asHost<T>(fn: () => T): T {
  hostDepth++;
  try {
    return fn();
  } finally {
    hostDepth--;
  }
}

/**
 * True when the function calling the guard is the learner's code (natives in between skipped), or
 * when no script at all is calling it: a guarded function handed straight to a promise
 * (`promise.then(Date.now)`) runs as a microtask with nothing else on the stack. The worker's own
 * code, PGlite and XState always call these from a function of their own, and keep the originals
 * they bound before the lock-down (`hostClock`).
 */
function calledFromLearnerCode(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 8;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  // Lines: "Error", calledFromLearnerCode, the guard, then the guarded function's callers.
  const frames = stack.split('\n').slice(3);
  for (const frame of frames) {
    if (learnerFrame.test(frame)) return true;
    // Native frames ("at Array.map (<anonymous>)") sit between a callback and its caller.
    if (!/\(<anonymous>\)|at <anonymous>$/.test(frame.trim())) return false;
  }
  return true;
}

function guard<T extends object>(target: T, name: keyof T & string, what: string): void {
  const original = target[name] as unknown as (...args: unknown[]) => unknown;
  if (typeof original !== 'function') return;
  const guarded = function (this: unknown, ...args: unknown[]) {
    if (hostDepth === 0 && calledFromLearnerCode()) throw new SandboxError(what);
    return original.apply(target, args);
  };
  try {
    Object.defineProperty(target, name, { value: guarded, configurable: false, writable: false });
  } catch {
    /* non-configurable in this browser: left as it is */
  }
}

let locked = false;

/** Lock the sandbox down; idempotent. Call it after PGlite has booted, before any learner code runs. */
export function lockDown(): void {
  if (locked) return;
  locked = true;
  for (const name of NETWORK_AND_STORAGE) removeProperty(scope, name);
  // The worker speaks to the page on a private port from here on (worker-main keeps its own
  // reference to postMessage for the one message that hands the port over): learner code can
  // neither post on the worker's channel nor close the worker, which the page could only have
  // taken for a loop that never yields (red-team review).
  removeProperty(scope, 'postMessage');
  removeProperty(scope, 'close');
  const nav = scope.navigator as Record<string, unknown> | undefined;
  if (nav) {
    for (const name of ['storage', 'locks', 'serviceWorker', 'sendBeacon']) {
      if (name in nav) removeProperty(nav, name, `navigator.${name}`);
    }
  }
  guard(Date, 'now', 'Date.now()');
  // The guards below tell the learner's calls by their stack trace; a learner's own
  // Error.prepareStackTrace could write one without their frame and so get the clock and
  // randomness back (red-team review). Nothing in this worker sets it.
  try {
    Object.defineProperty(Error, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });
  } catch {
    /* already locked */
  }
  // `new Date()` and `Date()` read the clock too; `new Date(ms)` and `instanceof Date` keep working.
  const HostDate = Date;
  const GuardedDate = new Proxy(HostDate, {
    construct(target, args: unknown[], newTarget) {
      if (args.length === 0 && hostDepth === 0 && calledFromLearnerCode()) throw new SandboxError('new Date()');
      return Reflect.construct(target, args, newTarget) as object;
    },
    apply(target, thisArg, args: unknown[]) {
      if (hostDepth === 0 && calledFromLearnerCode()) throw new SandboxError('Date()');
      return Reflect.apply(target, thisArg, args) as unknown;
    },
  });
  scope.Date = GuardedDate;
  // And the way round the global name: `new (new Date(0).constructor)()` reached the host's Date.
  Object.defineProperty(HostDate.prototype, 'constructor', { value: GuardedDate, writable: false, configurable: false });
  guard(performance, 'now', 'performance.now()');
  guard(Math, 'random', 'Math.random()');
  guard(scope as Record<string, unknown>, 'setTimeout', 'setTimeout');
  guard(scope as Record<string, unknown>, 'setInterval', 'setInterval');
  if (typeof crypto !== 'undefined') {
    guard(crypto, 'randomUUID', 'crypto.randomUUID()');
    guard(crypto, 'getRandomValues', 'crypto.getRandomValues()');
  }
}

/** What a probe of the sandbox found: the names still reachable, for tests and the report. */
export function sandboxReport(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of NETWORK_AND_STORAGE) {
    const v = scope[name];
    out[name] = v === undefined ? 'removed' : 'throws';
  }
  return out;
}
