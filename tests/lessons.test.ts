/**
 * A lesson is one folder. The derived files (code.generated.ts, catalog.generated.ts) are what
 * `npm run gen` writes from the lessons as they stand; every folder is in the ordered list and the
 * list names no missing folder; and a throwaway lesson laid out as a folder (tests/fixtures/lessons/)
 * is registered the way the list registers lessons and runs in both directions: its starter breaks
 * its invariant on the demonstration and its solution holds across an exploration.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { generatedFiles, readLessonCode } from '../scripts/gen';
import { LESSON_DEFINITIONS, LESSONS } from '../simulations/lessons/index';
import { SCENARIO_IDS } from '../simulations/lessons/catalog';
import { withCode } from '../simulations/lessons/kit/define';
import { explore, runScenario } from '../simulations/run/run';
import throwaway from './fixtures/lessons/double-receipt/lesson';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LESSONS_DIR = fileURLToPath(new URL('../simulations/lessons/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/lessons/', import.meta.url));

describe('derived files', () => {
  test('are what npm run gen writes from the lessons now (run `npm run gen` when this fails)', async () => {
    for (const [file, content] of Object.entries(await generatedFiles())) {
      expect(readFileSync(ROOT + file, 'utf8'), `${file} is stale: run npm run gen`).toBe(content);
    }
  });

  test('the light catalog follows the ordered list', () => {
    expect([...SCENARIO_IDS]).toEqual(LESSONS.map((l) => l.id));
  });
});

describe('one folder per lesson', () => {
  const folders = readdirSync(LESSONS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(`${LESSONS_DIR}${d.name}/lesson.ts`))
    .map((d) => d.name)
    .sort();

  test('every lesson folder is in the ordered list, under its own name, and nothing else is', () => {
    expect([...LESSON_DEFINITIONS.map((l) => l.id)].sort()).toEqual(folders);
  });

  test.each(folders)('%s has a starter and a solution as real files, and they are what the lesson runs', (id) => {
    const lesson = LESSONS.find((l) => l.id === id)!;
    expect(lesson.variants.starter.code).toBe(readFileSync(`${LESSONS_DIR}${id}/starter.ts`, 'utf8'));
    expect(lesson.variants.solution.code).toBe(readFileSync(`${LESSONS_DIR}${id}/solution.ts`, 'utf8'));
  });

  test.each(folders)('%s declares who may crash and what may be lost, among its own actors', (id) => {
    const lesson = LESSONS.find((l) => l.id === id)!;
    for (const p of lesson.crashable) expect(lesson.actors, `${id}: crashable ${p}`).toContain(p);
    if (lesson.lossy) expect(lesson.actors, `${id}: lossy ${lesson.lossy}`).toContain(lesson.lossy.split('.')[0]);
  });
});

describe('a throwaway lesson from a fixture folder', () => {
  const sim = simDbPerFile();
  const code = readLessonCode(FIXTURES)['double-receipt']!;
  const lesson = withCode(throwaway, code);

  test('the generator reads its folder as it reads the real ones', () => {
    expect(code.starter).toContain('env.email.send');
    expect(code.solution).toContain('claim(');
  });

  test('its starter breaks its invariant on the demonstration', async () => {
    const r = await runScenario(sim.db, { scenario: lesson, code: lesson.variants.starter.code, variant: 'starter', seed: lesson.demo.seed });
    expect(r.verdict, replayHint(r)).toBe('violated');
    expect(r.invariants.find((i) => !i.held)?.id, replayHint(r)).toBe('at-most-one-receipt');
  });

  test('its solution holds on the demonstration and across 40 explored schedules', async () => {
    const r = await runScenario(sim.db, { scenario: lesson, code: lesson.variants.solution.code, variant: 'solution', seed: lesson.demo.seed });
    expect(r.verdict, replayHint(r)).toBe('held');
    const e = await explore(sim.db, { scenario: lesson, code: lesson.variants.solution.code, variant: 'solution', runs: 40 });
    expect(e.violations, JSON.stringify(e.counterexample)).toBe(0);
    expect(e.errors).toBe(0);
  });
});
