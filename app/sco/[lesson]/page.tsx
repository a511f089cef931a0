import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { toLabScenario } from '@/components/lab/lab-scenario';
import { PlatformLesson } from '@/components/platform/PlatformLesson';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';
import { lessonById } from '@/simulations/lessons/index';

/** One lesson as a course platform launches it: a SCO of the SCORM packages, an AU of the cmi5 package. */
export const dynamicParams = false;

export function generateStaticParams(): { lesson: string }[] {
  return SCENARIO_CATALOG.map((s) => ({ lesson: s.id }));
}

interface ScoPageProps {
  params: Promise<{ lesson: string }>;
}

export async function generateMetadata({ params }: ScoPageProps): Promise<Metadata> {
  const { lesson } = await params;
  const entry = SCENARIO_CATALOG.find((s) => s.id === lesson);
  return entry ? { title: entry.title, description: entry.summary } : {};
}

export default async function ScoLessonPage({ params }: ScoPageProps) {
  const { lesson } = await params;
  const index = SCENARIO_CATALOG.findIndex((s) => s.id === lesson);
  if (index < 0) notFound();
  const entry = SCENARIO_CATALOG[index]!;
  return (
    <div className="space-y-6">
      <header className="max-w-3xl">
        <p className="text-xs font-semibold text-teal-800 dark:text-teal-300">
          Lesson {index + 1} of {SCENARIO_CATALOG.length} · {entry.concept}
        </p>
        <h1 data-testid="scenario-title" className="mt-1 text-2xl font-bold tracking-tight text-slate-900 dark:text-white">
          {entry.title}
        </h1>
        <p className="mt-2 text-sm leading-6 text-slate-600 dark:text-slate-300">{entry.summary}</p>
      </header>
      {/* Built on the server: the client gets plain data, never the engine. */}
      <PlatformLesson scenario={toLabScenario(lessonById(entry.id))} />
    </div>
  );
}
