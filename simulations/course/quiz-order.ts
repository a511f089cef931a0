/**
 * The order a learner sees a question's choices in: a shuffle drawn from the learner's quiz seed
 * and the question's id, so the same seed always gives the same order (a learner coming back, or a
 * class sharing one seed, where "choice B" names the same answer on every screen) and different
 * seeds give different orders. Answers are recorded by choice id, never by position, so an order
 * can change without touching what was recorded. Pure: no DOM, no clock, no ambient randomness.
 */
import { sha256Hex } from '../../lib/op-key';
import { Prng } from '../engine/prng';

/** A quiz seed: a short word a learner, a URL (`?quizSeed=`) or a course platform can carry. */
export const QUIZ_SEED_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The seed of every order rendered before the learner's own is known (the static page itself). */
export const DEFAULT_QUIZ_SEED = 'course';

/** Whether `value` can be a quiz seed. */
export function isQuizSeed(value: unknown): value is string {
  return typeof value === 'string' && QUIZ_SEED_PATTERN.test(value);
}

/** A choice's label on screen, by position: A, B, C, … */
export function choiceLetter(position: number): string {
  return String.fromCharCode(65 + position);
}

/**
 * `choices` in the order seed `seed` gives question `questionId`: a Fisher–Yates shuffle driven by
 * a PRNG seeded from SHA-256 of seed and question id. A new array; the input is left as it is.
 */
export function shuffledChoices<T>(choices: readonly T[], questionId: string, seed: string): T[] {
  const prng = new Prng(Number.parseInt(sha256Hex(`quiz-order:${seed}:${questionId}`).slice(0, 8), 16) | 0);
  const out = [...choices];
  for (let i = out.length - 1; i > 0; i--) {
    const j = prng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
