/**
 * A watchdog for the CLI when it runs a learner's file. The browser runs learner code in a Web
 * Worker it can terminate; the CLI runs it in its own thread (or its explore threads), where a
 * handler that loops without ever awaiting (`while (true) {}`) would hang the command for good. So
 * the watched thread bumps a shared counter every 200 ms, and a small watchdog thread, which keeps
 * running while the watched thread is stuck, checks it: when it has not moved for `limitMs`, it
 * writes `message` straight to stderr (the stuck thread cannot relay it) and kills the process.
 * Each explore thread starts its own watchdog (./explore-worker.ts): a stuck thread there leaves
 * the main thread free, so the main thread's watchdog alone never fired.
 *
 * The simulator itself never holds the thread that long: explore gives the host a turn every few
 * schedules, and a run is stopped at its step limit well within a second.
 */
import { Worker } from 'node:worker_threads';
import { learnerLocation } from '../simulations/learner/compile';

const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const beat = new Int32Array(workerData.counter);
let seen = Atomics.load(beat, 0);
let quietSince = Date.now();
setInterval(() => {
  const now = Atomics.load(beat, 0);
  if (now !== seen) {
    seen = now;
    quietSince = Date.now();
  } else if (Date.now() - quietSince > workerData.limitMs) {
    writeSync(2, workerData.message + '\\n');
    process.kill(process.pid, 'SIGKILL');
  }
}, 250);
`;

/** Start watching the calling thread; the returned function stops it. The watchdog never keeps the process alive. */
export function startWatchdog(limitMs: number, message: string): () => void {
  const counter = new SharedArrayBuffer(4);
  const beat = new Int32Array(counter);
  const worker = new Worker(WATCHDOG_SOURCE, { eval: true, workerData: { counter, limitMs, message } });
  worker.unref();
  const heartbeat = setInterval(() => Atomics.add(beat, 0, 1), 200);
  heartbeat.unref();
  return () => {
    clearInterval(heartbeat);
    void worker.terminate();
  };
}

/** A rejection reason described without trusting it (no prototype, a throwing getter, a Proxy). */
export function describeReason(reason: unknown): string {
  try {
    const text = reason instanceof Error ? `${reason.name}: ${reason.message}` : typeof reason === 'string' ? JSON.stringify(reason) : (JSON.stringify(reason) ?? String(reason));
    const loc = learnerLocation(reason);
    return loc ? `${text} (line ${loc.line})` : text;
  } catch {
    try {
      return Object.prototype.toString.call(reason);
    } catch {
      return 'a value that cannot be described';
    }
  }
}

/**
 * Say on stderr when a promise is rejected and nothing handles it (learner code's
 * `Promise.reject(…)` left alone), instead of Node's default of ending the process with the raw
 * reason. A rejection changes nothing a run decides: the run goes on and its verdict stands.
 */
export function reportUnhandledRejections(): void {
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(`warning: a promise was rejected and never handled: ${describeReason(reason)}\n`);
  });
}
