import type { Metadata } from 'next';
import Link from 'next/link';
import { QuizList } from '@/components/course/QuizList';
import { generalQuestions } from '@/simulations/lessons/catalog';

export const metadata: Metadata = {
  title: 'Check yourself',
  description: 'Two questions on dedupe keys and safe retries, each with an explanation and a run that shows it.',
};

export default function CheckPage() {
  return (
    <div className="max-w-3xl space-y-8">
      <nav aria-label="Breadcrumb" className="text-sm text-slate-500 dark:text-slate-400">
        <Link href="/" className="rounded hover:text-teal-700 focus-visible:outline-2 dark:hover:text-teal-400">
          Course map
        </Link>
      </nav>
      <header>
        <h1 className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl dark:text-white">Check yourself</h1>
        <p className="mt-3 text-base leading-7 text-slate-600 dark:text-slate-300">
          Two questions the whole lesson comes down to. Each answer explains why, and links to a run in the lab that shows it happen.
          Each lab has its own questions below the lab.
        </p>
      </header>
      <QuizList questions={generalQuestions()} heading="Two questions on the whole course" id="lesson-questions" />
    </div>
  );
}
