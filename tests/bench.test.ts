/**
 * `npm run bench` still runs end to end (bundled by esbuild, with worker threads) and prints the
 * figures the README describes. Tiny sizes; nothing about speed is asserted (figures, not targets).
 */
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';

test('npm run bench prints its figures as JSON after the summary lines', { timeout: 240_000 }, () => {
  const r = spawnSync('npm', ['run', '-s', 'bench', '--', '4'], {
    encoding: 'utf8',
    timeout: 200_000,
    env: { ...process.env, BENCH_WARMUP: '3', BENCH_ROUNDS: '2', BENCH_WORKERS: '1' },
  });
  expect(r.status, r.stderr).toBe(0);
  const [summary, machine, probe] = r.stdout.split('\n');
  expect(summary).toMatch(/^concurrent-redelivery bench: \d+ schedules\/s on one thread .*median of 2 rounds of 4 after 3 warm-up schedules/);
  expect(machine).toMatch(/^machine: SELECT 1 takes \d+ µs here/);
  expect(probe).toMatch(/through PGlite\.query one by one.*the ratio is [\d.]+$/);
  const figures = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
  expect(figures).toMatchObject({ scenario: 'concurrent-redelivery', runs: 4, warmUp: 3, rounds: 2, parallel: { workers: 1 } });
  expect(figures.perRound).toHaveLength(2);
  for (const k of ['schedulesPerSecond', 'fullRunsPerSecond', 'coldSchedulesPerSecond', 'ratio', 'ratioVsQueries', 'sqlAsQueriesMs', 'sqlBackToBackMs', 'stepsPerSchedule', 'statementsPerSchedule']) {
    expect(figures[k], k).toBeGreaterThan(0);
  }
  expect(figures.parallel.schedulesPerSecond).toBeGreaterThan(0);
});
