import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { toLabScenario } from '@/components/lab/lab-scenario';
import { LabIsland } from '@/components/course/LabIsland';
import { lessonById } from '@/simulations/lessons';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';

export const dynamicParams = false;

/**
 * From 1280 px the lab is a workspace the height of the screen: the page uses the width and keeps
 * its top margin small, so the title, the controls, the code and the run fit one screen.
 */
const LAB_CSS = `@media (min-width: 1280px) { body > main#main, body > header > div, body > footer > p { max-width: 112rem; } body > main#main { padding-top: 0.75rem; padding-bottom: 1.5rem; } }`;

export function generateStaticParams(): { scenario: string }[] {
  return SCENARIO_CATALOG.map((s) => ({ scenario: s.id }));
}

interface LabPageProps {
  params: Promise<{ scenario: string }>;
}

function find(id: string) {
  const index = SCENARIO_CATALOG.findIndex((s) => s.id === id);
  return index === -1 ? null : { index, scenario: SCENARIO_CATALOG[index]! };
}

export async function generateMetadata({ params }: LabPageProps): Promise<Metadata> {
  const found = find((await params).scenario);
  return found ? { title: found.scenario.title, description: found.scenario.summary } : {};
}

export default async function LabPage({ params }: LabPageProps) {
  const found = find((await params).scenario);
  if (!found) notFound();
  const { index, scenario } = found;
  const previous = SCENARIO_CATALOG[index - 1];
  const next = SCENARIO_CATALOG[index + 1];

  return (
    <div className="space-y-8 xl:space-y-3">
      <style>{LAB_CSS}</style>
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <nav aria-label="Breadcrumb" className="text-slate-500 dark:text-slate-400">
          <ol className="flex items-center gap-2">
            <li>
              <Link href="/" className="rounded hover:text-teal-700 focus-visible:outline-2 dark:hover:text-teal-400">
                Course map
              </Link>
            </li>
            <li aria-hidden="true">/</li>
            <li aria-current="page">
              Lesson {index + 1} of {SCENARIO_CATALOG.length}
            </li>
          </ol>
        </nav>
        <Link
          href={`/demo/${scenario.id}/`}
          // Made for a projector: not offered on a phone, where its pinned controls cover the screen.
          className="hidden rounded font-medium text-slate-600 hover:text-teal-700 focus-visible:outline-2 sm:inline dark:text-slate-300 dark:hover:text-teal-400"
        >
          Presenter mode
        </Link>
      </div>

      <header className="max-w-3xl xl:flex xl:max-w-none xl:flex-wrap xl:items-baseline xl:gap-x-4">
        <p className="inline-flex rounded-full bg-teal-50 px-2.5 py-0.5 text-xs font-semibold text-teal-800 ring-1 ring-teal-600/20 dark:bg-teal-400/10 dark:text-teal-300 dark:ring-teal-400/30">
          <span className="sr-only">Concept: </span>
          <span data-testid="scenario-concept">{scenario.concept}</span>
        </p>
        <h1 data-testid="scenario-title" className="mt-3 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl xl:order-first xl:mt-0 xl:text-2xl dark:text-white">
          {scenario.title}
        </h1>
        <p data-testid="scenario-summary" className="mt-3 text-base leading-7 text-slate-600 xl:mt-1 xl:line-clamp-1 xl:basis-full xl:text-sm xl:leading-6 dark:text-slate-300">
          {scenario.summary}
        </p>
      </header>

      {/* Built on the server: the client gets plain data, never the engine. The course part
          (predict, then run; progress; questions) wraps the lab on the client, as an island
          hydrated when its own chunk arrives. */}
      <LabIsland scenario={toLabScenario(lessonById(scenario.id))} />

      <nav aria-label="Lessons" className="flex flex-wrap justify-between gap-4 border-t border-slate-200 pt-6 text-sm dark:border-slate-800">
        {previous ? (
          <Link href={`/lab/${previous.id}/`} className="group rounded-md focus-visible:outline-2 focus-visible:outline-offset-4">
            <span className="block text-xs text-slate-500 dark:text-slate-400">← Previous lesson</span>
            <span className="font-medium text-slate-800 group-hover:text-teal-700 dark:text-slate-200 dark:group-hover:text-teal-400">
              {previous.title}
            </span>
          </Link>
        ) : (
          <Link href="/" className="group rounded-md focus-visible:outline-2 focus-visible:outline-offset-4">
            <span className="block text-xs text-slate-500 dark:text-slate-400">← Back to</span>
            <span className="font-medium text-slate-800 group-hover:text-teal-700 dark:text-slate-200 dark:group-hover:text-teal-400">
              The course map
            </span>
          </Link>
        )}
        {next && (
          <Link href={`/lab/${next.id}/`} className="group rounded-md text-right focus-visible:outline-2 focus-visible:outline-offset-4">
            <span className="block text-xs text-slate-500 dark:text-slate-400">Next lesson →</span>
            <span className="font-medium text-slate-800 group-hover:text-teal-700 dark:text-slate-200 dark:group-hover:text-teal-400">
              {next.title}
            </span>
          </Link>
        )}
      </nav>
    </div>
  );
}
