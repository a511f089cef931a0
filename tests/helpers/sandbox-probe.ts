/**
 * Locks the worker's sandbox down in this process and reports what each probe got, as JSON on
 * stdout: "ok" or "threw: <message>". Run by tests/sandbox.test.ts in a process of its own, since
 * the lock-down changes globals the test runner itself uses.
 */
import { asHost, lockDown } from '../../components/db/sandbox';
import { LEARNER_FILE } from '../../simulations/learner/compile';

/** A function compiled as the worker compiles learner code: its frames are `learner.ts` frames. */
const learner = (body: string) => new Function(`${body}\n//# sourceURL=${LEARNER_FILE}`) as () => unknown;

lockDown();

const probes: Record<string, () => unknown> = {
  'learner Date.now()': learner('return Date.now()'),
  'learner new Date()': learner('return new Date()'),
  'learner Date()': learner('return Date()'),
  'learner performance.now()': learner('return performance.now()'),
  'learner [1, 2].map(Math.random)': learner('return [1, 2].map(Math.random)'),
  'learner new Date(0)': learner('return new Date(0).getTime()'),
  'host Date.now()': () => Date.now(),
  'host new Date()': () => new Date(),
  'host Math.random() inside asHost': () => asHost(() => Math.random()),
  // asHost promises that no learner code runs inside it: the guards then trust the caller.
  'learner Date.now() inside asHost': () => asHost(learner('return Date.now()')),
  'nested asHost': () => asHost(() => asHost(learner('return 1'))),
  'asHost that throws': () =>
    asHost(() => {
      throw new Error('PGlite failed');
    }),
  // The trust ends with the call, even one that threw.
  'learner Date.now() after asHost threw': learner('return Date.now()'),
};

const out: Record<string, string> = {};
for (const [name, probe] of Object.entries(probes)) {
  try {
    probe();
    out[name] = 'ok';
  } catch (err) {
    out[name] = `threw: ${(err as Error).message}`;
  }
}
process.stdout.write(JSON.stringify(out));
