import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { toLabScenario } from '@/components/lab/lab-scenario';
import { EdxLesson } from '@/components/platform/EdxLesson';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';
import { lessonById } from '@/simulations/lessons/index';

/** One lesson as an Open edX JSInput problem (docs/course-platforms.md). */
export const dynamicParams = false;

export function generateStaticParams(): { lesson: string }[] {
  return SCENARIO_CATALOG.map((s) => ({ lesson: s.id }));
}

interface EdxPageProps {
  params: Promise<{ lesson: string }>;
}

export async function generateMetadata({ params }: EdxPageProps): Promise<Metadata> {
  const { lesson } = await params;
  const entry = SCENARIO_CATALOG.find((s) => s.id === lesson);
  return entry ? { title: `${entry.title} (Open edX problem)`, description: entry.summary } : {};
}

export default async function EdxLessonPage({ params }: EdxPageProps) {
  const { lesson } = await params;
  const entry = SCENARIO_CATALOG.find((s) => s.id === lesson);
  if (!entry) notFound();
  return (
    <div className="space-y-6">
      <h1 data-testid="scenario-title" className="text-2xl font-bold tracking-tight text-slate-900 dark:text-white">
        {entry.title}
      </h1>
      <EdxLesson scenario={toLabScenario(lessonById(entry.id))} />
    </div>
  );
}
