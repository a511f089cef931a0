/**
 * The learner's saved progress (components/course/progress.ts) over a stand-in localStorage:
 * what counts as started and done, the next step in lesson order, and that broken or unavailable
 * storage never breaks the course.
 */
import { beforeEach, expect, test } from 'vitest';
import { SCENARIO_CATALOG } from '../simulations/lessons/catalog';
import {
  PROGRESS_KEY,
  clearPrediction,
  codeChips,
  codeDetail,
  codeDigest,
  lessonState,
  markExploredBroken,
  markExploredClean,
  markPassed,
  markSawOutcome,
  markVisited,
  predictedBlind,
  nextLesson,
  recordPrediction,
  recordQuiz,
  answeredOnOwn,
  questionsProgress,
  hasProgress,
  resetProgress,
  restoreProgress,
  revealPrediction,
  updateProgress,
  type Progress,
} from '../components/course/progress';

class MemoryStorage {
  data = new Map<string, string>();
  broken = false;
  getItem(k: string) {
    if (this.broken) throw new Error('storage disabled');
    return this.data.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    if (this.broken) throw new Error('storage disabled');
    this.data.set(k, v);
  }
  removeItem(k: string) {
    this.data.delete(k);
  }
}

let storage: MemoryStorage;
beforeEach(() => {
  storage = new MemoryStorage();
  (globalThis as { window?: unknown }).window = { localStorage: storage, addEventListener() {}, removeEventListener() {} };
  // The module keeps the last progress in memory (for when storage is unavailable): start empty.
  resetProgress();
});

const current = (): Progress => {
  let seen: Progress | null = null;
  updateProgress((p) => (seen = p));
  return seen!;
};

const [first, second] = SCENARIO_CATALOG;

test('a fresh learner starts at the first lesson', () => {
  const p = current();
  expect(lessonState(p, first!.id)).toBe('new');
  expect(nextLesson(p, SCENARIO_CATALOG)?.id).toBe(first!.id);
});

const FIX = codeDigest('export async function handleMessage() { /* my fix */ }');
const OTHER = codeDigest('export async function handleMessage() { /* another try */ }');

test('visiting starts a lesson; only "Your code" held on the demonstration and explored clean makes it done and moves the next step on', () => {
  markVisited(first!.id);
  expect(lessonState(current(), first!.id)).toBe('started');
  expect(nextLesson(current(), SCENARIO_CATALOG)?.id).toBe(first!.id);
  recordQuiz('some-question', 'a', true);
  expect(lessonState(current(), first!.id)).toBe('started');
  markPassed(first!.id, FIX);
  // Held on the one demonstration schedule: not done yet (a look-alike fix gets this far).
  expect(lessonState(current(), first!.id)).toBe('started');
  expect(codeDetail('started', current().scenarios[first!.id])).toBe('✓ Held on the demonstration · next: Explore it');
  expect(nextLesson(current(), SCENARIO_CATALOG)?.id).toBe(first!.id);
  markExploredClean(first!.id, FIX);
  expect(lessonState(current(), first!.id)).toBe('done');
  expect(codeDetail('done', current().scenarios[first!.id])).toMatch(/came through exploration/);
  expect(nextLesson(current(), SCENARIO_CATALOG)?.id).toBe(second!.id);
  expect(JSON.parse(storage.data.get(PROGRESS_KEY)!)).toMatchObject({ version: 1, scenarios: { [first!.id]: { visited: true, passed: true, explored: true } } });
});

test('the demonstration and the exploration must be of the same code, in either order; once done, a lesson stays done', () => {
  // Explored one version, held with another: not done.
  markExploredClean(first!.id, OTHER);
  markPassed(first!.id, FIX);
  expect(lessonState(current(), first!.id)).toBe('started');
  // The explored version then holds on the demonstration too: done.
  markPassed(first!.id, OTHER);
  expect(lessonState(current(), first!.id)).toBe('done');
  // Later versions held but not explored do not undo it.
  markPassed(first!.id, codeDigest('a third version'));
  expect(lessonState(current(), first!.id)).toBe('done');
});

test('a lesson keeps only the latest few code digests', () => {
  for (let i = 0; i < 20; i++) markPassed(first!.id, codeDigest(`version ${i}`));
  const held = current().scenarios[first!.id]!.heldCode!;
  expect(held.length).toBeLessThanOrEqual(8);
  expect(held.at(-1)).toBe(codeDigest('version 19'));
  // The oldest are forgotten: exploring version 0 now does not finish the lesson.
  markExploredClean(first!.id, codeDigest('version 0'));
  expect(lessonState(current(), first!.id)).toBe('started');
  markExploredClean(first!.id, codeDigest('version 18'));
  expect(lessonState(current(), first!.id)).toBe('done');
});

test('all lessons done: no next lesson', () => {
  for (const s of SCENARIO_CATALOG) {
    markPassed(s.id, FIX);
    markExploredClean(s.id, FIX);
  }
  expect(nextLesson(current(), SCENARIO_CATALOG)).toBeNull();
});

test('a prediction is revealed only once made, and can be made again', () => {
  revealPrediction(first!.id, '2', 'order 1042 got 2 receipts');
  expect(current().scenarios[first!.id]?.predicted).toBeUndefined();
  recordPrediction(first!.id, '1');
  revealPrediction(first!.id, '2', 'order 1042 got 2 receipts');
  expect(current().scenarios[first!.id]?.predicted).toEqual({ choice: '1', actual: '2', actualText: 'order 1042 got 2 receipts' });
  clearPrediction(first!.id);
  expect(current().scenarios[first!.id]?.predicted).toBeUndefined();
});

test("a prediction made after the learner watched the starter's demonstration end is marked so, and does not count", () => {
  // Predicted first, then the run: it counts.
  recordPrediction(first!.id, '1');
  revealPrediction(first!.id, '2', 'order 1042 got 2 receipts');
  markSawOutcome(first!.id);
  expect(predictedBlind(current().scenarios[first!.id])).toBe(true);
  // Predicting again, now that the outcome is known: marked, and not counted once revealed either.
  clearPrediction(first!.id);
  recordPrediction(first!.id, '2');
  expect(current().scenarios[first!.id]?.predicted).toEqual({ choice: '2', afterSeeing: true });
  revealPrediction(first!.id, '2', 'order 1042 got 2 receipts');
  expect(predictedBlind(current().scenarios[first!.id])).toBe(false);
  // Ran first, predicted after: the same.
  markSawOutcome(second!.id);
  recordPrediction(second!.id, '1');
  revealPrediction(second!.id, '2', 'order 1042 got 2 receipts');
  expect(current().scenarios[second!.id]?.predicted?.afterSeeing).toBe(true);
  expect(predictedBlind(current().scenarios[second!.id])).toBe(false);
  // Not yet revealed: not counted.
  expect(predictedBlind({ predicted: { choice: '1' } })).toBe(false);
});

test('corrupt or foreign data in storage reads as no progress', () => {
  for (const raw of ['{not json', 'null', '{"version":2,"scenarios":{}}', '[]']) {
    storage.data.set(PROGRESS_KEY, raw);
    const p = current();
    expect(p.scenarios).toEqual({});
    expect(p.quizzes).toEqual({});
  }
});

test('with storage disabled, progress still lives for the page', () => {
  storage.broken = true;
  markVisited(second!.id);
  recordQuiz('q', 'b', false);
  const p = current();
  expect(p.scenarios[second!.id]?.visited).toBe(true);
  expect(p.quizzes.q).toEqual({ choice: 'b', correct: false, revealed: true });
});

test('a quiz answer counts in the score only if it came before a wrong answer showed the right one', () => {
  // Wrong answer → the card reveals the right one → Try again → pick it: no credit for the answer it showed.
  recordQuiz('first-try', 'a', true);
  expect(answeredOnOwn(current().quizzes['first-try'])).toBe(true);
  recordQuiz('after-reveal', 'b', false);
  expect(answeredOnOwn(current().quizzes['after-reveal'])).toBe(false);
  recordQuiz('after-reveal', 'a', true);
  expect(current().quizzes['after-reveal']).toEqual({ choice: 'a', correct: true, revealed: true });
  expect(answeredOnOwn(current().quizzes['after-reveal'])).toBe(false);
  // Answering a known question again keeps its credit; a wrong one later loses it for good.
  recordQuiz('first-try', 'a', true);
  expect(answeredOnOwn(current().quizzes['first-try'])).toBe(true);
  recordQuiz('first-try', 'c', false);
  recordQuiz('first-try', 'a', true);
  expect(answeredOnOwn(current().quizzes['first-try'])).toBe(false);
  // Progress saved before `revealed` existed still scores as it did.
  expect(answeredOnOwn({ choice: 'a', correct: true })).toBe(true);
  expect(answeredOnOwn(undefined)).toBe(false);
});

test('the lab chip and the course map say the same of a lesson\'s questions: right so far, and how many on your own', () => {
  expect(questionsProgress(current(), ['q1', 'q2'])).toEqual({ allRight: false, text: 'Questions 0/2' });
  recordQuiz('q1', 'a', true);
  expect(questionsProgress(current(), ['q1', 'q2'])).toEqual({ allRight: false, text: 'Questions 1/2' });
  recordQuiz('q2', 'b', false);
  recordQuiz('q2', 'a', true);
  expect(questionsProgress(current(), ['q1', 'q2'])).toEqual({ allRight: true, text: 'Questions 2/2 (1 on your own)' });
});

test('reset forgets everything recorded, and Undo puts it back exactly', () => {
  expect(hasProgress({ version: 1, scenarios: {}, quizzes: {} })).toBe(false);
  markVisited('receipt-redelivery');
  markPassed('receipt-redelivery', FIX);
  markExploredClean('receipt-redelivery', FIX);
  recordQuiz('q1', 'a', true);
  const before = current();
  expect(hasProgress(before)).toBe(true);
  expect(resetProgress()).toEqual(before);
  expect(current()).toEqual({ version: 1, scenarios: {}, quizzes: {} });
  expect(lessonState(current(), 'receipt-redelivery')).toBe('new');
  restoreProgress(before);
  expect(current()).toEqual(before);
});

test("only a run of the starter's code checks a prediction: the Starter tab, or \"Your code\" still holding the starter", async () => {
  const { ranStarter } = await import('../components/course/demo-run');
  const starter = 'export async function handleMessage() {}\n';
  expect(ranStarter({ mode: 'starter', code: starter }, starter)).toBe(true);
  expect(ranStarter({ mode: 'yours', code: `\n${starter}  ` }, starter)).toBe(true);
  expect(ranStarter({ mode: 'yours', code: `// my fix\n${starter}` }, starter)).toBe(false);
  expect(ranStarter({ mode: 'solution', code: 'export async function handleMessage(m, env) {}' }, starter)).toBe(false);
});

test('"Your code" passes only when it held and threw nothing: code that throws every time can leave every invariant vacuously held', async () => {
  const { codeHeld } = await import('../components/course/demo-run');
  expect(codeHeld({ mode: 'yours', verdict: 'held', codeErrors: 0 })).toBe(true);
  // dual-write with BEGIN on env.db.query: every checkout throws, no order is promised, nothing breaks.
  expect(codeHeld({ mode: 'yours', verdict: 'held', codeErrors: 3 })).toBe(false);
  expect(codeHeld({ mode: 'yours', verdict: 'violated', codeErrors: 0 })).toBe(false);
  expect(codeHeld({ mode: 'solution', verdict: 'held', codeErrors: 0 })).toBe(false);
});


test('an exploration counts only when it ran every schedule asked for and none broke an invariant, failed to load or saw the code fail', async () => {
  const { exploredClean } = await import('../components/course/demo-run');
  expect(exploredClean({ runs: 200, requested: 200, violations: 0, errors: 0, failures: 0 })).toBe(true);
  expect(exploredClean({ runs: 200, requested: 200, violations: 1, errors: 0, failures: 0 })).toBe(false);
  expect(exploredClean({ runs: 37, requested: 200, violations: 0, errors: 0, failures: 0 })).toBe(false); // cancelled
  expect(exploredClean({ runs: 1, requested: 200, violations: 0, errors: 1, failures: 0 })).toBe(false); // did not load
  expect(exploredClean({ runs: 0, requested: 0, violations: 0, errors: 0, failures: 0 })).toBe(false);
  expect(exploredClean({ runs: 200, requested: 200, violations: 0, errors: 0, failures: 3 })).toBe(false); // the code failed
});

test('marking says when it finished the lesson, once', () => {
  expect(markPassed(first!.id, FIX)).toBe(false);
  expect(markExploredClean(first!.id, OTHER)).toBe(false);
  expect(markExploredClean(first!.id, FIX)).toBe(true);
  expect(markPassed(first!.id, FIX)).toBe(false);
  expect(markExploredClean(first!.id, OTHER)).toBe(false);
});

test('the chips speak of the code now in "Your code": what this version did, and what is left to do with it', () => {
  const opts = { runs: 200 };
  const chips = (code = OTHER) => codeChips(current().scenarios[first!.id], code, opts);
  // Nothing yet; and before the lab has read the code, nothing is said of a version.
  expect(codeChips(undefined, FIX, opts)).toEqual({
    held: { on: false, text: 'Make “Your code” hold on the demonstration' },
    explored: { on: false, text: 'Next: Explore your current code (200 schedules, none may break it)' },
  });
  markPassed(first!.id, FIX);
  expect(codeChips(current().scenarios[first!.id], null, opts).held.on).toBe(false);
  expect(codeChips(current().scenarios[first!.id], null, opts).held.text).not.toMatch(/earlier|current/);
  // FIX held; the editor now holds OTHER: the tick is not carried over to code that never ran there.
  expect(chips(FIX).held).toEqual({ on: true, text: 'Your current code held on the demonstration' });
  expect(chips().held).toEqual({ on: false, text: 'Next: Run your current code on the lesson’s own seed and faults' });
  // FIX explored and broke: said of FIX, kept across visits (it is saved), and on the map.
  markExploredBroken(first!.id, FIX, 26, 200);
  expect(chips(FIX).explored).toEqual({ on: false, text: 'Explored: 26 of 200 schedules broke your current code — replay the counterexample above' });
  expect(chips().explored.text).toBe('Next: Explore your current code (200 schedules, none may break it)');
  expect(codeDetail(lessonState(current(), first!.id), current().scenarios[first!.id])).toBe('✓ Held on the demonstration · but 26 of 200 explored schedules broke it');
  // OTHER explored clean, never run on the demonstration: what is left is that Run. The chips speak of
  // this version: no "held" carried over from an earlier one, no "explore" of code just explored clean.
  markExploredClean(first!.id, OTHER);
  expect(chips()).toEqual({
    held: { on: false, text: 'Next: Run your current code on the lesson’s own seed and faults' },
    explored: { on: true, text: 'Your current code came through 200 explored schedules' },
  });
  expect(codeDetail(lessonState(current(), first!.id), current().scenarios[first!.id])).toBe('✓ Explored clean · next: run that code on the demonstration');
  // It holds there too: done. The lesson stays done, but the chips go on speaking of the code on
  // screen: after the lesson, an edit that breaks 80 of 200 schedules does not keep two ticks.
  markPassed(first!.id, OTHER);
  expect(lessonState(current(), first!.id)).toBe('done');
  expect(chips()).toEqual({
    held: { on: true, text: 'Your current code held on the demonstration' },
    explored: { on: true, text: 'Your current code came through 200 explored schedules' },
  });
  expect(codeChips(current().scenarios[first!.id], null, opts)).toEqual({
    held: { on: true, text: 'Your code held on the demonstration' },
    explored: { on: true, text: 'Your code came through 200 explored schedules' },
  });
  const edited = codeDigest('something else');
  expect(chips(edited)).toEqual({
    held: { on: false, text: 'Your current code has not run on the lesson’s own seed and faults yet' },
    explored: { on: false, text: 'Your current code has not been explored yet (200 schedules)' },
  });
  markExploredBroken(first!.id, edited, 80, 200);
  expect(chips(edited).explored).toEqual({ on: false, text: 'Explored: 80 of 200 schedules broke your current code — replay the counterexample above' });
  expect(lessonState(current(), first!.id)).toBe('done');
});
