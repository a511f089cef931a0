import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { EmbedLab } from '@/components/embed/EmbedLab';
import { toLabScenario } from '@/components/lab/lab-scenario';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';
import { lessonById } from '@/simulations/lessons';

export const dynamicParams = false;

export function generateStaticParams(): { scenario: string }[] {
  return SCENARIO_CATALOG.map((s) => ({ scenario: s.id }));
}

interface EmbedPageProps {
  params: Promise<{ scenario: string }>;
}

export async function generateMetadata({ params }: EmbedPageProps): Promise<Metadata> {
  const { scenario } = await params;
  const entry = SCENARIO_CATALOG.find((s) => s.id === scenario);
  return entry ? { title: `${entry.title} (embedded lab)`, description: entry.summary } : {};
}

export default async function EmbedLabPage({ params }: EmbedPageProps) {
  const { scenario } = await params;
  if (!SCENARIO_CATALOG.some((s) => s.id === scenario)) notFound();
  // Built on the server: the client gets plain data, never the engine.
  return <EmbedLab scenario={toLabScenario(lessonById(scenario))} />;
}
