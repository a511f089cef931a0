/**
 * The "check yourself" questions and the "predict, then run" questions, checked against the real
 * engine on PGlite: every question is well formed with exactly one correct answer, every "see it
 * happen" state names a real scenario and really gives the verdict it promises (the named invariant
 * breaks where it says), and every prediction's outcome is computed from real runs — the starter's
 * and the solution's differ, so a prediction can never be right by a hard-coded answer.
 */
import { describe, expect, test } from 'vitest';
import { SCENARIO_CATALOG } from '../simulations/lessons/catalog';
import type { RunFacts } from '../simulations/lessons/kit/predictions';
import { QUESTIONS, generalQuestions, questionById, questionsFor } from '../simulations/lessons/catalog';
import { runScenario } from '../simulations/run/run';
import { decodeLabLink, labLinkHref } from '../simulations/course/share-link';
import { LESSONS, lessonById } from '../simulations/lessons/index';

const PREDICTIONS = LESSONS.flatMap((l) => (l.prediction ? [{ ...l.prediction, scenario: l.id }] : []));
const predictionFor = (id: string) => PREDICTIONS.find((p) => p.scenario === id);
import { replayHint, simDbPerFile } from './helpers/sim-db';
import { choiceLetter, shuffledChoices } from '../simulations/course/quiz-order';

const sim = simDbPerFile();

const scenarioIds = new Set(LESSONS.map((s) => s.id));

test('question ids are unique and the lookups find them', () => {
  const ids = QUESTIONS.map((q) => q.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const q of QUESTIONS) expect(questionById(q.id)).toBe(q);
  expect(questionById('no-such-question')).toBeUndefined();
});

test("the lesson's two general questions are there", () => {
  expect(generalQuestions().map((q) => q.id)).toEqual(['lesson-receipt-key', 'lesson-pdf-timeout']);
});

test('every scenario of the catalog has at least one question', () => {
  const missing = SCENARIO_CATALOG.filter((s) => questionsFor(s.id).length === 0).map((s) => s.id);
  expect(missing).toEqual([]);
});

describe.each(QUESTIONS.map((q) => [q.id, q] as const))('question %s', (_id, q) => {
  test('is well formed: ≥2 choices with unique ids, exactly one correct answer, an explanation', () => {
    expect(q.prompt.trim().length).toBeGreaterThan(10);
    expect(q.choices.length).toBeGreaterThanOrEqual(2);
    const choiceIds = q.choices.map((c) => c.id);
    expect(new Set(choiceIds).size).toBe(choiceIds.length);
    expect(choiceIds.filter((id) => id === q.correct)).toHaveLength(1);
    for (const c of q.choices) expect(c.text.trim()).not.toBe('');
    expect(new Set(q.choices.map((c) => c.text)).size).toBe(q.choices.length);
    expect(q.explanation.trim().length).toBeGreaterThan(40);
    if (q.scenario !== undefined) expect(scenarioIds.has(q.scenario), `scenario ${q.scenario}`).toBe(true);
  });

  if (q.see) {
    const see = q.see;
    test(`"see it happen" (${see.scenario}, ${see.variant}, seed ${see.seed}) gives the verdict ${see.expect}`, async () => {
      expect(scenarioIds.has(see.scenario), `scenario ${see.scenario}`).toBe(true);
      const scenario = lessonById(see.scenario);
      const r = await runScenario(sim.db, { scenario, code: scenario.variants[see.variant].code, variant: see.variant, seed: see.seed, faults: see.faults });
      expect(r.verdict, replayHint(r)).toBe(see.expect);
      if (see.invariant) {
        const inv = r.invariants.find((i) => i.id === see.invariant);
        expect(inv, `invariant ${see.invariant} exists in ${see.scenario}`).toBeDefined();
        expect(inv!.held, `${see.invariant}: ${inv!.detail}; ${replayHint(r)}`).toBe(see.expect === 'held');
        // The selected step is where the invariant broke, so the lab opens on the evidence.
        if (see.step !== undefined && see.expect === 'violated') expect(inv!.step, replayHint(r)).toBe(see.step);
      }
      if (see.step !== undefined) {
        expect(see.step).toBeGreaterThanOrEqual(0);
        expect(see.step).toBeLessThan(r.trace.length);
      }
      // The PDF question is about a timed-out conversion: the lab opens on that timeout, and the
      // resent conversion is the only thing done twice (a second credit).
      if (q.id === 'lesson-pdf-timeout') {
        const at = r.trace[see.step!]!;
        expect(at.type, at.text).toBe('timeout');
        expect(at.text).toMatch(/html-to-pdf .* timed out .* transform had acted/);
        expect(r.ledger.credits.filter((c) => c.kind === 'transform')).toHaveLength(2);
      }
    });

    test('"see it happen" is a share link that opens exactly that state', () => {
      const href = labLinkHref({ scenario: see.scenario, variant: see.variant, seed: see.seed, faults: see.faults, step: see.step });
      expect(href.startsWith(`/lab/${see.scenario}/#`)).toBe(true);
      const decoded = decodeLabLink(href.slice(href.indexOf('#')));
      expect(decoded).toMatchObject({ ok: true, link: { scenario: see.scenario, variant: see.variant, seed: see.seed, faults: see.faults } });
      if (decoded.ok) expect(decoded.link.step).toBe(see.step);
    });
  }
});

/** The correct choice stands out by length: strictly longer (or shorter) than every other choice. */
const strictly = (q: (typeof QUESTIONS)[number], cmp: (a: number, b: number) => boolean) => {
  const answer = q.choices.find((c) => c.id === q.correct)!.text.length;
  return q.choices.every((c) => c.id === q.correct || cmp(answer, c.text.length));
};

describe('fair questions: the answer is not given away by its length or its place', () => {
  test('the correct choice is the strictly longest in at most 3 of the questions, the strictly shortest in at most 3', () => {
    const longest = QUESTIONS.filter((q) => strictly(q, (a, b) => a > b)).map((q) => q.id);
    const shortest = QUESTIONS.filter((q) => strictly(q, (a, b) => a < b)).map((q) => q.id);
    expect(longest.length, `strictly longest: ${longest.join(', ')}`).toBeLessThanOrEqual(3);
    expect(shortest.length, `strictly shortest: ${shortest.join(', ')}`).toBeLessThanOrEqual(3);
  });

  test('no correct choice is over 20 % longer than the longest wrong one, or under 60 % of the shortest', () => {
    const outliers = QUESTIONS.filter((q) => {
      const answer = q.choices.find((c) => c.id === q.correct)!.text.length;
      const wrong = q.choices.filter((c) => c.id !== q.correct).map((c) => c.text.length);
      return answer > 1.2 * Math.max(...wrong) || answer < 0.6 * Math.min(...wrong);
    });
    expect(outliers.map((q) => `${q.id}: ${q.choices.map((c) => `${c.id === q.correct ? '*' : ''}${c.text.length}`).join(' ')}`)).toEqual([]);
  });

  test('one seed always gives one order; the order is a permutation; seeds differ', () => {
    for (const q of QUESTIONS) {
      const a = shuffledChoices(q.choices, q.id, 'class-7b');
      expect(shuffledChoices(q.choices, q.id, 'class-7b')).toEqual(a);
      expect([...a].map((c) => c.id).sort()).toEqual(q.choices.map((c) => c.id).sort());
      expect(q.choices.map((c) => c.id), 'the input is left as it is').toEqual(q.choices.map((c) => c.id));
    }
    const orders = new Set(Array.from({ length: 40 }, (_, i) => shuffledChoices(QUESTIONS[0]!.choices, QUESTIONS[0]!.id, `s${i}`).map((c) => c.id).join()));
    expect(orders.size, 'forty seeds give many orders of four choices').toBeGreaterThanOrEqual(12);
  });

  test('over 600 learners, the correct choice of every question lands on every letter about equally often', () => {
    const learners = Array.from({ length: 600 }, (_, i) => `learner${i}`);
    for (const q of QUESTIONS) {
      const at = new Array<number>(q.choices.length).fill(0);
      for (const seed of learners) at[shuffledChoices(q.choices, q.id, seed).findIndex((c) => c.id === q.correct)]! += 1;
      const even = learners.length / q.choices.length;
      for (const [i, n] of at.entries()) expect(n, `${q.id}: answer at ${choiceLetter(i)} for ${n} of ${learners.length} (${at.join('/')})`).toBeGreaterThan(0.75 * even);
    }
  });

  test('for one learner, the correct letters over all questions are spread: no letter holds more than half of them', () => {
    for (const seed of ['course', 'class-7b', 'a1b2c3d4e5f6']) {
      const letters = QUESTIONS.map((q) => shuffledChoices(q.choices, q.id, seed).findIndex((c) => c.id === q.correct));
      const most = Math.max(...[0, 1, 2, 3].map((i) => letters.filter((l) => l === i).length));
      expect(most, `seed ${seed}: ${letters.map(choiceLetter).join('')}`).toBeLessThanOrEqual(QUESTIONS.length / 2);
    }
  });

  test('the fairness check can fail: the questions as they were (the answer the longest in 17 of 20) would not pass', () => {
    const padded = QUESTIONS.map((q) => ({ ...q, choices: q.choices.map((c) => (c.id === q.correct ? { ...c, text: `${c.text}, as the lesson explains in detail` } : c)) }));
    expect(padded.filter((q) => strictly(q, (a, b) => a > b)).length).toBeGreaterThan(3);
  });
});

describe('predict, then run', () => {
  test('every scenario of the catalog asks for a prediction', () => {
    expect(SCENARIO_CATALOG.filter((s) => !predictionFor(s.id)).map((s) => s.id)).toEqual([]);
  });

  test('every prediction names a scenario; scenarios have at most one', () => {
    for (const p of PREDICTIONS) expect(scenarioIds.has(p.scenario), p.scenario).toBe(true);
    expect(new Set(PREDICTIONS.map((p) => p.scenario)).size).toBe(PREDICTIONS.length);
  });

  describe.each(PREDICTIONS.map((p) => [p.scenario, p] as const))('%s', (id, p) => {
    test('is computed from real runs: the starter and the solution give different, valid outcomes', async () => {
      const scenario = lessonById(id);
      const outcomes: Record<string, string> = {};
      for (const variant of ['starter', 'solution'] as const) {
        const r = await runScenario(sim.db, { scenario, code: scenario.variants[variant].code, variant, seed: scenario.demo.seed });
        expect(r.verdict === 'held' || r.verdict === 'violated', replayHint(r)).toBe(true);
        const facts: RunFacts = { verdict: r.verdict as RunFacts['verdict'], invariants: r.invariants, ledger: r.ledger };
        const outcome = p.measure(facts);
        expect(p.options.map((o) => o.id), `${variant}: outcome ${outcome}`).toContain(outcome);
        expect(p.describe(facts).length).toBeGreaterThan(5);
        outcomes[variant] = outcome;
      }
      expect(outcomes.starter, 'the demonstration must surprise someone: starter and solution differ').not.toBe(outcomes.solution);
      // The lab reads the same answer from the run itself.
      const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
      expect(r.prediction?.outcome).toBe(outcomes.starter);
    });
  });

  test('known figures of the demonstrations, read from the ledger', async () => {
    const figures: Record<string, string> = {};
    for (const id of ['receipt-redelivery', 'random-key-on-retry', 'relay-concurrency', 'batch-credits', 'business-date-reminder']) {
      const scenario = lessonById(id);
      const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
      figures[id] = predictionFor(id)!.describe({ verdict: r.verdict as RunFacts['verdict'], invariants: r.invariants, ledger: r.ledger });
    }
    expect(figures).toEqual({
      'receipt-redelivery': 'order 1042 got 2 receipts',
      'random-key-on-retry': 'order 1042 was charged 2 times',
      'relay-concurrency': '4 orders were published more than once (8 messages in all)',
      'batch-credits': '15 credits spent on 10 items',
      'business-date-reminder': 'order 1042 got 3 reminders',
    });
  });
});
