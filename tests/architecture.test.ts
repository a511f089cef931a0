/**
 * The shape the lint rules cannot see: no import cycles anywhere in app/, components/,
 * simulations/ or lib/ (type-only imports included, as a reader follows them), and the engine's
 * rooms where DESIGN.md puts them.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

test('no import cycles', async () => {
  const graph = await madge(['app', 'components', 'simulations', 'lib'].map((d) => ROOT + d), {
    baseDir: ROOT,
    fileExtensions: ['ts', 'tsx'],
    tsConfig: `${ROOT}tsconfig.json`,
  });
  expect(Object.keys(graph.obj()).length, 'madge read the tree').toBeGreaterThan(100);
  expect(graph.circular()).toEqual([]);
}, 120_000);

test('the checker can see a cycle', async () => {
  const graph = await madge(`${ROOT}tests/fixtures/cycle/a.ts`, { baseDir: ROOT, fileExtensions: ['ts'] });
  expect(graph.circular()).toEqual([['tests/fixtures/cycle/a.ts', 'tests/fixtures/cycle/b.ts']]);
});

test.each([
  'simulations/engine/scheduler.ts',
  'simulations/engine/env.ts',
  'simulations/engine/queue.ts',
  'simulations/engine/fault-plan.ts',
  'simulations/engine/narration.ts',
  'simulations/engine/trace.ts',
  'simulations/providers/provider.ts',
  'simulations/providers/registry.ts',
  'simulations/db/port.ts',
  'simulations/db/pglite.ts',
  'simulations/db/postgres.ts',
  'simulations/run/run.ts',
  'simulations/run/lab-run.ts',
  'simulations/learner/compile.ts',
  'simulations/lessons/index.ts',
  'components/lab/controller/lab-machine.ts',
])('%s is where the design puts it', (file) => {
  expect(existsSync(ROOT + file)).toBe(true);
});
