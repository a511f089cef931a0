/**
 * The database worker's sandbox, locked down as the worker does it (in a process of its own: the
 * lock-down removes globals the test runner uses): learner code gets no host clock, randomness,
 * timers or network, with a hint where it reads the clock; the host's own code keeps them, since
 * it never shares a global object with the learner's; the network and storage are gone from the
 * worker itself too; and the intrinsics both share are frozen.
 */
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';

test('the worker sandbox: learner code refused the clock, randomness, timers and network; the host keeps them; the network is gone and the intrinsics frozen', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'tests/helpers/sandbox-probe.ts'], { encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  const got = JSON.parse(r.stdout) as Record<string, string>;
  expect(got['learner Date.now()']).toMatch(/^threw: Date\.now\(\) is not available in the simulation: use env\.clock\.now\(\)/);
  expect(got['learner new Date()']).toMatch(/^threw: new Date\(\) is not available/);
  expect(got['learner Date()']).toMatch(/^threw: Date\(\) is not available/);
  // Through a native in between (Array.map calling the refused function itself).
  expect(got['learner [1, 2].map(Math.random)']).toMatch(/^threw: Math\.random\(\) is not available in the simulation: use env\.random/);
  expect(got['learner new Date(0)']).toBe('ok: 0');
  // The way round the global name reaches SES's tamed Date, never the host's.
  expect(got['learner new Date(0).constructor.now()']).toMatch(/^threw: /);
  expect(got['learner typeof performance']).toBe('ok: undefined');
  expect(got['learner typeof setTimeout']).toBe('ok: undefined');
  expect(got['learner typeof fetch']).toBe('ok: undefined');
  expect(got['host Date.now()']).toBe('ok: number');
  expect(got['host Math.random()']).toBe('ok: number');
  expect(got['host performance.now()']).toBe('ok: number');
  expect(got['host fetch']).toBe('ok: undefined');
  expect(got['host BroadcastChannel']).toBe('ok: undefined');
  expect(got['host Object.prototype frozen']).toBe('ok: true');
  expect(JSON.parse(got.report!)).toMatchObject({ fetch: 'removed', BroadcastChannel: 'removed' });
});
