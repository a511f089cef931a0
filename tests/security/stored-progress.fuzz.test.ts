/**
 * Stored progress is input from outside: a bounded fuzz of the parser every reader goes through
 * (localStorage `eo:progress`, a progress file). Arbitrary JSON and arbitrary text never make it
 * throw, and nothing the course map or a lab computes from its output throws either. Mutations of
 * valid progress keep every part the mutation did not touch, exactly, and drop (and name) every
 * part it broke. fast-check prints the seed of any failure; rerun with it to reproduce.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SCENARIO_CATALOG } from '../../simulations/lessons/catalog';
import {
  codeChips,
  codeDetail,
  hasProgress,
  lessonDone,
  lessonState,
  nextLesson,
  predictedBlind,
  questionsProgress,
  type Progress,
  type ScenarioProgress,
} from '../../components/course/progress';
import { parseProgress, parseProgressText } from '../../components/course/progress-schema';
import { readProgressFile } from '../../components/course/progress-file';

const RUNS = 400;
const LESSON_IDS = SCENARIO_CATALOG.map((s) => s.id as string);

/** Everything the map and a lab compute from progress, for every lesson: none of it may throw. */
function useEverywhere(p: Progress): void {
  hasProgress(p);
  nextLesson(p, SCENARIO_CATALOG);
  questionsProgress(p, Object.keys(p.quizzes));
  for (const id of LESSON_IDS) {
    const s = p.scenarios[id];
    const state = lessonState(p, id);
    codeDetail(state, s);
    codeChips(s, null, { runs: 200 });
    codeChips(s, '0123456789abcdef', { runs: 200 });
    lessonDone(s);
    predictedBlind(s);
    expect(typeof (s?.predicted?.choice ?? '')).toBe('string');
  }
  if (p.sorting) Object.entries(p.sorting.choices).map(([k, v]) => k.length + v.length);
  JSON.stringify(p);
}

const FORBIDDEN = new Set(['constructor', 'prototype']);
const id = fc.stringMatching(/^[a-z0-9-]{1,16}$/).filter((s) => !FORBIDDEN.has(s));
const digest = fc.stringMatching(/^[0-9a-f]{16}$/);
const nat = fc.nat({ max: 100_000 });

const scenario: fc.Arbitrary<ScenarioProgress> = fc
  .record(
    {
      visited: fc.boolean(),
      predicted: fc.record({ choice: id, actual: id, actualText: fc.string({ maxLength: 40 }), afterSeeing: fc.boolean() }, { requiredKeys: ['choice'] }),
      sawOutcome: fc.boolean(),
      passed: fc.boolean(),
      explored: fc.boolean(),
      heldCode: fc.array(digest, { maxLength: 8 }),
      cleanCode: fc.array(digest, { maxLength: 8 }),
      broke: fc.record({ digest, violations: nat, runs: nat }),
    },
    { requiredKeys: [] },
  )
  .filter((s) => Object.keys(s).length > 0);

const validProgress: fc.Arbitrary<Progress> = fc.record(
  {
    version: fc.constant(1 as const),
    scenarios: fc.subarray(LESSON_IDS).chain((ids) => fc.tuple(...ids.map(() => scenario)).map((list) => Object.fromEntries(ids.map((lesson, i) => [lesson, list[i]!])))),
    quizzes: fc.dictionary(id, fc.record({ choice: id, correct: fc.boolean(), revealed: fc.boolean() }, { requiredKeys: ['choice', 'correct'] }), { maxKeys: 6 }),
    sorting: fc.tuple(nat, nat).chain(([a, b]) => fc.record({ choices: fc.dictionary(id, id, { maxKeys: 8 }), correct: fc.constant(Math.min(a, b)), total: fc.constant(Math.max(a, b)) })),
  },
  { requiredKeys: ['version', 'scenarios', 'quizzes'] },
);

/** Values no part of progress accepts (a boolean would be a valid `visited`, so none here). */
const invalid = fc.constantFrom<unknown>(5, -1.5, null, 'str', [5], { evil: {} }, { choice: { evil: 1 } });

describe('stored progress fuzz (bounded)', () => {
  test('arbitrary JSON never throws, and the output is valid progress that parses to itself', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.constant(undefined)), (value, inner) => {
        // Arbitrary values at the top and inside a plausible record, where most checks are reached.
        for (const candidate of [value, { version: 1, scenarios: { [LESSON_IDS[0]!]: inner, x: inner }, quizzes: { q: inner }, sorting: inner }, { version: 1, scenarios: inner, quizzes: inner }]) {
          const { progress, dropped } = parseProgress(candidate);
          useEverywhere(progress);
          expect(Array.isArray(dropped)).toBe(true);
          const again = parseProgress(JSON.parse(JSON.stringify(progress)));
          expect(again.dropped).toEqual([]);
          expect(again.progress).toEqual(progress);
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('arbitrary text and cut-short JSON never throw', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), validProgress, fc.nat(), (text, p, cut) => {
        useEverywhere(parseProgressText(text).progress);
        const json = JSON.stringify(p);
        useEverywhere(parseProgressText(json.slice(0, cut % (json.length + 1))).progress);
        const file = readProgressFile(JSON.stringify({ format: 'effectively-once-progress', version: 1, progress: p, code: {} }).slice(0, cut % (json.length + 80)));
        if (file.ok) useEverywhere(file.saved.progress);
      }),
      { numRuns: RUNS },
    );
  });

  test('valid progress survives a round trip whole', () => {
    fc.assert(
      fc.property(validProgress, (p) => {
        const { progress, dropped } = parseProgress(JSON.parse(JSON.stringify(p)));
        expect(dropped).toEqual([]);
        expect(progress).toEqual(p);
      }),
      { numRuns: RUNS },
    );
  });

  test('mutations of valid progress drop exactly the broken parts and keep every other part', () => {
    const FIELDS = ['visited', 'predicted', 'sawOutcome', 'passed', 'explored', 'heldCode', 'cleanCode', 'broke'] as const;
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('field' as const), lesson: fc.constantFrom(...LESSON_IDS), field: fc.constantFrom(...FIELDS), value: invalid }),
      fc.record({ kind: fc.constant('lesson' as const), lesson: fc.constantFrom(...LESSON_IDS), value: fc.constantFrom<unknown>(5, 'done', null, true, [{ visited: true }]) }),
      fc.record({ kind: fc.constant('unknown' as const), lesson: id.filter((s) => !LESSON_IDS.includes(s)), value: fc.jsonValue({ maxDepth: 2 }) }),
      fc.record({ kind: fc.constant('quiz' as const), lesson: id, value: invalid }),
      fc.record({ kind: fc.constant('sorting' as const), value: fc.constantFrom<unknown>(5, 'x', [], { choices: 5, correct: 1, total: 2 }, { choices: {}, correct: 3, total: 2 }) }),
    );
    fc.assert(
      fc.property(validProgress, fc.array(mutation, { minLength: 1, maxLength: 5 }), (p, mutations) => {
        const stored = JSON.parse(JSON.stringify(p)) as Record<string, Record<string, unknown>> & { sorting?: unknown };
        const broken = new Set<string>();
        for (const m of mutations) {
          if (m.kind === 'field') {
            const entry = stored.scenarios![m.lesson];
            if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
            (entry as Record<string, unknown>)[m.field] = m.value;
            broken.add(`scenarios.${m.lesson}.${m.field}`);
          } else if (m.kind === 'lesson') {
            stored.scenarios![m.lesson] = m.value;
            for (const b of [...broken]) if (b.startsWith(`scenarios.${m.lesson}.`)) broken.delete(b);
            broken.add(`scenarios.${m.lesson}`);
          } else if (m.kind === 'unknown') {
            stored.scenarios![m.lesson] = m.value;
            broken.add(`scenarios.${m.lesson}`);
          } else if (m.kind === 'quiz') {
            stored.quizzes![m.lesson] = m.value;
            broken.add(`quizzes.${m.lesson}`);
          } else {
            stored.sorting = m.value;
            broken.add('sorting');
          }
        }
        const { progress, dropped } = parseProgress(stored);
        useEverywhere(progress);
        expect(new Set(dropped.map((d) => d.path))).toEqual(broken);
        for (const d of dropped) expect(d.text.length).toBeGreaterThan(0);
        // Every part not broken is kept exactly; every broken part is gone.
        for (const lesson of LESSON_IDS) {
          const before = p.scenarios[lesson];
          if (broken.has(`scenarios.${lesson}`)) {
            expect(progress.scenarios[lesson]).toBeUndefined();
            continue;
          }
          for (const field of FIELDS) {
            const expected = broken.has(`scenarios.${lesson}.${field}`) ? undefined : before?.[field];
            expect(progress.scenarios[lesson]?.[field]).toEqual(expected);
          }
        }
        for (const [q, record] of Object.entries(p.quizzes)) {
          if (!broken.has(`quizzes.${q}`)) expect(progress.quizzes[q]).toEqual(record);
        }
        expect(progress.sorting).toEqual(broken.has('sorting') ? undefined : p.sorting);
        expect(Object.keys(progress.scenarios).every((lesson) => LESSON_IDS.includes(lesson))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
