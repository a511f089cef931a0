import Link from 'next/link';
import { DbStatus } from '@/components/db/DbStatus';
import { SCENARIO_CATALOG } from '@/simulations/catalog';

export default function CourseMap() {
  return (
    <div className="space-y-12">
      <section className="grid items-start gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div>
          <p className="text-sm font-semibold tracking-wide text-teal-700 uppercase dark:text-teal-400">
            Idempotent consumers and the transactional outbox
          </p>
          <h1 className="mt-2 text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl dark:text-white">
            Effectively Once
          </h1>
          <div className="mt-5 max-w-2xl space-y-4 text-base leading-7 text-slate-600 dark:text-slate-300">
            <p>
              A queue that promises <em>at-least-once</em> delivery keeps that promise by sending a
              message again whenever it is not sure the first attempt finished. So a worker that
              crashed a moment too late repeats its work: a second receipt, a second charge.
            </p>
            <p>
              Exactly-once delivery is not on offer. What you can build is an effect that happens
              once however often the message arrives. In each lesson you run real consumer code
              against a real PostgreSQL in your browser, watch the duplicate happen, and then change
              the code until the same failure is harmless.
            </p>
          </div>
        </div>
        <DbStatus className="lg:mt-9" />
      </section>

      <section aria-labelledby="lessons-heading">
        <h2 id="lessons-heading" className="text-lg font-semibold text-slate-900 dark:text-white">
          Lessons
        </h2>
        <ol className="mt-4 space-y-3" data-testid="lesson-list">
          {SCENARIO_CATALOG.map((scenario, index) => {
            const first = index === 0;
            return (
              <li key={scenario.id}>
                <Link
                  href={`/lab/${scenario.id}/`}
                  data-testid="lesson-link"
                  aria-describedby={`lesson-${scenario.id}-summary`}
                  className={`group flex gap-4 rounded-xl border bg-white p-5 shadow-sm transition hover:-translate-y-px hover:shadow-md focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:bg-slate-900 ${
                    first
                      ? 'border-teal-300 ring-1 ring-teal-300/60 dark:border-teal-700 dark:ring-teal-700/50'
                      : 'border-slate-200 hover:border-slate-300 dark:border-slate-800 dark:hover:border-slate-700'
                  }`}
                >
                  <span
                    aria-hidden="true"
                    className={`grid size-9 shrink-0 place-items-center rounded-full font-mono text-sm font-semibold ${
                      first
                        ? 'bg-teal-600 text-white dark:bg-teal-500 dark:text-slate-950'
                        : 'bg-slate-100 text-slate-600 dark:bg-slate-800 dark:text-slate-300'
                    }`}
                  >
                    {index + 1}
                  </span>
                  <span className="min-w-0 flex-1">
                    <span className="flex flex-wrap items-center gap-2">
                      <span className="sr-only">Lesson {index + 1}: </span>
                      <span data-testid="lesson-title" className="font-semibold text-slate-900 dark:text-white">
                        {scenario.title}
                      </span>
                      <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-600 dark:bg-slate-800 dark:text-slate-300">
                        {scenario.concept}
                      </span>
                      {first && (
                        <span className="rounded-full bg-teal-600 px-2 py-0.5 text-xs font-semibold text-white dark:bg-teal-500 dark:text-slate-950">
                          Start here
                        </span>
                      )}
                    </span>
                    <span
                      id={`lesson-${scenario.id}-summary`}
                      className="mt-1.5 block text-sm leading-6 text-slate-600 dark:text-slate-400"
                    >
                      {scenario.summary}
                    </span>
                  </span>
                  <span
                    aria-hidden="true"
                    className="self-center text-slate-400 transition group-hover:translate-x-0.5 group-hover:text-teal-600 dark:text-slate-500 dark:group-hover:text-teal-400"
                  >
                    →
                  </span>
                </Link>
              </li>
            );
          })}
        </ol>
      </section>
    </div>
  );
}
