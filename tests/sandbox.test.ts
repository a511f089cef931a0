/**
 * The worker's sandbox guards (in a process of their own: the lock-down changes globals the test
 * runner uses): learner code reading the host's clock or randomness is refused, the host's own
 * code is not, and inside `asHost` (the worker's synchronous calls into PGlite) the guards do not
 * look at the stack at all.
 */
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';

test('the clock and randomness guards: learner code refused, the host not, asHost trusted for its call only', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'tests/helpers/sandbox-probe.ts'], { encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const got = JSON.parse(r.stdout) as Record<string, string>;
  const refused = /^threw: .* is not available in the simulation/;
  expect(got['learner Date.now()']).toMatch(refused);
  expect(got['learner new Date()']).toMatch(/^threw: new Date\(\) is not available/);
  expect(got['learner Date()']).toMatch(/^threw: Date\(\) is not available/);
  expect(got['learner performance.now()']).toMatch(/^threw: performance\.now\(\) is not available/);
  // Through a native in between (Array.map calling the guarded function itself).
  expect(got['learner [1, 2].map(Math.random)']).toMatch(/^threw: Math\.random\(\) is not available/);
  expect(got['learner new Date(0)']).toBe('ok');
  expect(got['host Date.now()']).toBe('ok');
  expect(got['host new Date()']).toBe('ok');
  expect(got['host Math.random() inside asHost']).toBe('ok');
  expect(got['learner Date.now() inside asHost']).toBe('ok');
  expect(got['nested asHost']).toBe('ok');
  expect(got['asHost that throws']).toBe('threw: PGlite failed');
  expect(got['learner Date.now() after asHost threw']).toMatch(refused);
});
