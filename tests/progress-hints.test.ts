/**
 * The hints a learner opened and the quiz seed, as progress keeps them: recorded once each, kept in
 * the order first opened, read back through the schema (a bad value dropped alone and named), and
 * progress saved before either existed still loads whole. The seed survives a reset.
 */
import { beforeEach, expect, test } from 'vitest';
import { HINTS_KEPT, parseProgress } from '../components/course/progress-schema';
import { hintOpened, recordHint, recordQuiz, resetProgress, setQuizSeed, updateProgress, type Progress } from '../components/course/progress';
import { quizSeedFromSearch } from '../components/course/quiz-seed';

class MemoryStorage {
  data = new Map<string, string>();
  getItem(k: string) {
    return this.data.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.data.set(k, v);
  }
  removeItem(k: string) {
    this.data.delete(k);
  }
}

beforeEach(() => {
  (globalThis as { window?: unknown }).window = { localStorage: new MemoryStorage(), addEventListener() {}, removeEventListener() {} };
  updateProgress(() => ({ version: 1, scenarios: {}, quizzes: {} }));
});

const current = (): Progress => {
  let seen: Progress | null = null;
  updateProgress((p) => (seen = p));
  return seen!;
};

test('hints opened are recorded once each, in the order first opened, per lesson', () => {
  recordHint('lease-expiry', 'nudge');
  recordHint('lease-expiry', 'every-order-receipted/crash-db');
  recordHint('lease-expiry', 'nudge');
  recordHint('receipt-redelivery', 'solution');
  const p = current();
  expect(p.scenarios['lease-expiry']?.hints).toEqual(['nudge', 'every-order-receipted/crash-db']);
  expect(p.scenarios['receipt-redelivery']?.hints).toEqual(['solution']);
  expect(hintOpened(p.scenarios['lease-expiry'], 'nudge')).toBe(true);
  expect(hintOpened(p.scenarios['lease-expiry'], 'solution')).toBe(false);
  // What was stored reads back the same.
  expect(parseProgress(JSON.parse(JSON.stringify(p)))).toEqual({ progress: p, dropped: [] });
});

test('progress saved before hints and quiz seeds existed loads whole', () => {
  const old = {
    version: 1,
    scenarios: { 'receipt-redelivery': { visited: true, passed: true, heldCode: ['0123456789abcdef'] } },
    quizzes: { 'receipt-redelivery-what-happens': { choice: 'redelivered', correct: true } },
  };
  const { progress, dropped } = parseProgress(old);
  expect(dropped).toEqual([]);
  expect(progress).toEqual(old);
});

test('stored hints are validated: duplicates folded, the list bounded, a bad list dropped alone and named', () => {
  const many = Array.from({ length: HINTS_KEPT + 10 }, (_, i) => `h${i}`);
  const ok = parseProgress({ version: 1, scenarios: { 'lease-expiry': { visited: true, hints: ['nudge', 'nudge', ...many] } }, quizzes: {} });
  expect(ok.progress.scenarios['lease-expiry']?.hints).toHaveLength(HINTS_KEPT);
  expect(ok.progress.scenarios['lease-expiry']?.hints?.slice(0, 2)).toEqual(['nudge', 'h0']);
  const bad = parseProgress({ version: 1, scenarios: { 'lease-expiry': { visited: true, hints: ['nudge', 'has space'] } }, quizzes: {} });
  expect(bad.progress.scenarios['lease-expiry']).toEqual({ visited: true });
  expect(bad.dropped).toEqual([{ path: 'scenarios.lease-expiry.hints', text: '“The worker that never came back”: which hints you opened' }]);
});

test('a quiz seed is kept, validated, and survives a reset of the progress', () => {
  setQuizSeed('class-7b');
  recordQuiz('receipt-redelivery-what-happens', 'redelivered', true);
  expect(current().quizSeed).toBe('class-7b');
  resetProgress();
  expect(current()).toEqual({ version: 1, scenarios: {}, quizzes: {}, quizSeed: 'class-7b' });
  const bad = parseProgress({ version: 1, scenarios: {}, quizzes: {}, quizSeed: 'no spaces allowed' });
  expect(bad.progress.quizSeed).toBeUndefined();
  expect(bad.dropped.map((d) => d.path)).toEqual(['quizSeed']);
});

test('a ?quizSeed= in the address is taken only when it is a valid seed', () => {
  expect(quizSeedFromSearch('?quizSeed=class-7b')).toBe('class-7b');
  expect(quizSeedFromSearch('?parentOrigin=x&quizSeed=A1_b2')).toBe('A1_b2');
  expect(quizSeedFromSearch('?quizSeed=')).toBeNull();
  expect(quizSeedFromSearch('?quizSeed=%3Cscript%3E')).toBeNull();
  expect(quizSeedFromSearch('?quizSeed=' + 'x'.repeat(65))).toBeNull();
  expect(quizSeedFromSearch('')).toBeNull();
});

test('merging an imported progress file keeps the hints opened on either side and the quiz seed here', async () => {
  const { mergeProgress } = await import('../components/course/progress-file');
  const here: Progress = { version: 1, scenarios: { 'lease-expiry': { visited: true, hints: ['nudge'] } }, quizzes: {}, quizSeed: 'here1' };
  const file: Progress = { version: 1, scenarios: { 'lease-expiry': { hints: ['solution', 'nudge'] }, 'dual-write': { hints: ['nudge'] } }, quizzes: {}, quizSeed: 'file1' };
  const merged = mergeProgress(here, file);
  expect(merged.scenarios['lease-expiry']?.hints).toEqual(['nudge', 'solution']);
  expect(merged.scenarios['dual-write']?.hints).toEqual(['nudge']);
  expect(merged.quizSeed).toBe('here1');
  expect(mergeProgress({ version: 1, scenarios: {}, quizzes: {} }, file).quizSeed).toBe('file1');
});
