/**
 * Locks the worker's sandbox down in this process as the database worker does (`lockDown`, then
 * `hardenRealm`) and reports what each probe got, as JSON on stdout: "ok: <value>" or
 * "threw: <message>". Run by tests/sandbox.test.ts in a process of its own, since the lock-down
 * removes globals the test runner itself uses.
 */
import { hardenRealm, lockDown, sandboxReport } from '../../components/db/sandbox';
import { exportedFunction, loadLearnerModule } from '../../simulations/learner/compile';

lockDown();
hardenRealm();

/** `expression` evaluated by learner code, as the worker loads it. */
const learner = (expression: string) => () => exportedFunction<() => unknown>(loadLearnerModule(`export function probe() { return ${expression}; }`), 'probe')();

const probes: Record<string, () => unknown> = {
  'learner Date.now()': learner('Date.now()'),
  'learner new Date()': learner('new Date()'),
  'learner Date()': learner('Date()'),
  'learner [1, 2].map(Math.random)': learner('[1, 2].map(Math.random)'),
  'learner new Date(0)': learner('new Date(0).getTime()'),
  'learner new Date(0).constructor.now()': learner('new Date(0).constructor.now()'),
  'learner typeof performance': learner('typeof performance'),
  'learner typeof setTimeout': learner('typeof setTimeout'),
  'learner typeof fetch': learner('typeof fetch'),
  // The host's own code is not guarded: it never shares a global with the learner's.
  'host Date.now()': () => typeof Date.now(),
  'host Math.random()': () => typeof Math.random(),
  'host performance.now()': () => typeof performance.now(),
  'host fetch': () => typeof (globalThis as Record<string, unknown>).fetch,
  'host BroadcastChannel': () => typeof (globalThis as Record<string, unknown>).BroadcastChannel,
  'host Object.prototype frozen': () => Object.isFrozen(Object.prototype),
};

const out: Record<string, string> = {};
for (const [name, probe] of Object.entries(probes)) {
  try {
    out[name] = `ok: ${String(probe())}`;
  } catch (err) {
    out[name] = `threw: ${(err as Error).message}`;
  }
}
out.report = JSON.stringify(sandboxReport());
process.stdout.write(JSON.stringify(out));
