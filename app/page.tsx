import Link from 'next/link';
import { DbStatus } from '@/components/db/DbStatus';
import { CheckSummary, LessonList, NextStep } from '@/components/course/CourseMap';
import { ReplaySort } from '@/components/course/ReplaySort';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';

export default function CourseMap() {
  return (
    <div className="space-y-12">
      <section className="grid grid-cols-1 items-start gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
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

      <NextStep lessons={SCENARIO_CATALOG} />

      <section aria-labelledby="lessons-heading">
        <h2 id="lessons-heading" className="text-lg font-semibold text-slate-900 dark:text-white">
          Lessons
        </h2>
        <LessonList lessons={SCENARIO_CATALOG} />
      </section>

      <section aria-labelledby="more-heading" className="space-y-4">
        <h2 id="more-heading" className="text-lg font-semibold text-slate-900 dark:text-white">
          Check and try
        </h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <Link
            href="/check/"
            data-testid="check-link"
            className="group rounded-xl border border-slate-200 bg-white p-5 shadow-sm hover:border-slate-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:border-slate-800 dark:bg-slate-900 dark:hover:border-slate-700"
          >
            <span className="font-semibold text-slate-900 group-hover:text-teal-800 dark:text-white dark:group-hover:text-teal-300">Check yourself →</span>
            <span className="mt-1 block text-sm leading-6 text-slate-600 dark:text-slate-400">
              Two questions on the whole course: which dedupe key stops a second receipt, and how to retry a conversion that timed out.{' '}
              <CheckSummary />.
            </span>
          </Link>
          <Link
            href="/try/"
            data-testid="try-link"
            className="group rounded-xl border border-slate-200 bg-white p-5 shadow-sm hover:border-slate-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:border-slate-800 dark:bg-slate-900 dark:hover:border-slate-700"
          >
            <span className="font-semibold text-slate-900 group-hover:text-teal-800 dark:text-white dark:group-hover:text-teal-300">Try it: signatures and keys →</span>
            <span className="mt-1 block text-sm leading-6 text-slate-600 dark:text-slate-400">
              HMAC-SHA256 and SHA-256 in your browser: the same input signs the same way every time, and an operation key is just a digest.
            </span>
          </Link>
        </div>
        <ReplaySort />
      </section>
    </div>
  );
}
