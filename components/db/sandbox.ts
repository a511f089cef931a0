/// <reference lib="webworker" />
/**
 * The database worker's side of the learner's sandbox. The boundary itself is the learner's realm
 * (simulations/learner/realm.ts): after `lockdown()` every intrinsic is frozen, and learner code
 * runs in a compartment whose global object has none of this worker's globals — no fetch, no
 * timers, no clock, no `postMessage` — so there is nothing here to guard by looking at stacks.
 *
 * As defence in depth, after PGlite has booted (it fetches its wasm and data once, at boot)
 * `lockDown()` also removes from the worker itself everything that reaches the network or storage
 * (fetch, XMLHttpRequest, WebSocket, EventSource, importScripts, indexedDB, caches,
 * BroadcastChannel, FontFace loading, navigator.storage …), or, where a property cannot be deleted,
 * overwrites it with a function that throws; and the worker's global `postMessage` and `close`
 * (the worker answers the page on a private port). The worker then locks the realm down
 * (`hardenRealm`, re-exported here).
 *
 * MessageChannel stays: the engine's host tick needs it. The worker keeps private references
 * (`hostClock`) taken before the lock-down for its own progress timing and heartbeat.
 */
export { hardenRealm } from '@/simulations/learner/realm';

const scope = globalThis as unknown as Record<string, unknown>;

/** The worker's own clock and timers, captured before any learner code can run. */
export const hostClock = {
  now: performance.now.bind(performance),
  setTimeout: setTimeout.bind(globalThis),
  clearTimeout: clearTimeout.bind(globalThis),
  setInterval: setInterval.bind(globalThis),
  clearInterval: clearInterval.bind(globalThis),
};

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
  // Fonts load from URLs: `new FontFace('x', 'url(http://…)').load()` was a request to anywhere.
  'FontFace',
  'fonts',
] as const;

/** Thrown by what the worker could not delete outright. */
export class SandboxError extends Error {
  constructor(what: string) {
    super(`${what} is not available in the simulation`);
    this.name = 'SandboxError';
  }
}

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

let locked = false;

/**
 * Remove the network, storage and the worker's own channel; idempotent. Call it after PGlite has
 * booted, and `hardenRealm()` after it, before any learner code runs.
 */
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
