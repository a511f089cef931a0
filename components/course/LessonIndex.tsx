/**
 * A plain numbered list of the lessons, each linking to its page under one section of the site
 * (`/demo/<id>/`, `/embed/<id>/`), and a way back to the course map: what `/demo/` and `/embed/`
 * show instead of a 404.
 */
import Link from 'next/link';
import type { ScenarioEntry } from '@/simulations/lessons/catalog';

export function LessonIndex({ lessons, href, testId }: { lessons: readonly ScenarioEntry[]; href: (id: string) => string; testId: string }) {
  return (
    <>
      <ol className="mt-4 grid grid-cols-1 gap-3 md:grid-cols-2" data-testid={testId}>
        {lessons.map((lesson, index) => (
          <li key={lesson.id}>
            <Link
              href={href(lesson.id)}
              className="group flex h-full gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm hover:border-slate-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:border-slate-800 dark:bg-slate-900 dark:hover:border-slate-700"
            >
              <span aria-hidden="true" className="w-7 shrink-0 text-right font-mono text-sm font-semibold text-slate-500 dark:text-slate-400">
                {index + 1}.
              </span>
              <span>
                <span className="block font-semibold text-slate-900 group-hover:text-teal-800 dark:text-white dark:group-hover:text-teal-300">{lesson.title}</span>
                <span className="mt-1 block text-sm text-slate-600 dark:text-slate-400">{lesson.concept}</span>
              </span>
            </Link>
          </li>
        ))}
      </ol>
      <p className="pt-2 text-sm">
        <Link href="/" className="font-medium text-teal-800 underline dark:text-teal-300">
          The course map
        </Link>
      </p>
    </>
  );
}
