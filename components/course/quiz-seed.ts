'use client';
/**
 * The learner's quiz seed, which orders every question's choices (simulations/course/quiz-order.ts).
 * A `?quizSeed=` in the page's address wins and is kept, so an instructor can hand a class one link
 * and every learner sees the same order ("choice B" means the same answer on every screen), in the
 * site, in an embed and in a course platform's package alike. Otherwise the seed kept with the
 * learner's progress is used, and a learner who has none gets one drawn once from the browser's
 * random source. Null until known: the server render and hydration use `DEFAULT_QUIZ_SEED`.
 */
import { useEffect } from 'react';
import { isQuizSeed } from '@/simulations/course/quiz-order';
import { currentProgress, setQuizSeed, useProgress } from './progress';

/** The `quizSeed` parameter of `search` (a location's query string), when it is a valid seed. */
export function quizSeedFromSearch(search: string): string | null {
  const value = new URLSearchParams(search).get('quizSeed');
  return isQuizSeed(value) ? value : null;
}

/** A fresh seed for a learner who has none: 48 random bits, as 12 hex digits. */
function drawQuizSeed(): string {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The learner's quiz seed; null during the server render and hydration. */
export function useQuizSeed(): string | null {
  const seed = useProgress().quizSeed;
  useEffect(() => {
    const linked = quizSeedFromSearch(window.location.search);
    if (linked) setQuizSeed(linked);
    else if (!currentProgress().quizSeed) setQuizSeed(drawQuizSeed());
  }, []);
  return seed ?? null;
}
