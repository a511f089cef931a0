'use client';
/** A titled list of "check yourself" questions, with how many the learner has answered correctly. */
import type { Question } from '@/simulations/lessons/catalog';
import { QuizCard } from './QuizCard';
import { answeredOnOwn, useProgress } from './progress';

export function QuizList({ questions, heading = 'Check yourself', id = 'check-yourself' }: { questions: readonly Question[]; heading?: string; id?: string }) {
  const quizzes = useProgress().quizzes;
  const right = questions.filter((q) => answeredOnOwn(quizzes[q.id])).length;
  if (questions.length === 0) return null;
  return (
    <section aria-labelledby={`${id}-heading`} data-testid="quiz-list" className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={`${id}-heading`} className="text-lg font-semibold text-slate-900 dark:text-white">
          {heading}
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="quiz-score">
          {right} of {questions.length} answered correctly on your own
        </p>
      </div>
      {questions.map((q) => (
        <QuizCard key={q.id} question={q} />
      ))}
    </section>
  );
}
