import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { PresenterDemo } from '@/components/demo/PresenterDemo';
import { toLabScenario } from '@/components/lab/lab-scenario';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';
import { lessonById } from '@/simulations/lessons';

export const dynamicParams = false;

export function generateStaticParams(): { scenario: string }[] {
  return SCENARIO_CATALOG.map((s) => ({ scenario: s.id }));
}

interface DemoPageProps {
  params: Promise<{ scenario: string }>;
}

export async function generateMetadata({ params }: DemoPageProps): Promise<Metadata> {
  const { scenario } = await params;
  const entry = SCENARIO_CATALOG.find((s) => s.id === scenario);
  return entry ? { title: `${entry.title} (presenter mode)`, description: entry.summary } : {};
}

export default async function DemoPage({ params }: DemoPageProps) {
  const { scenario } = await params;
  if (!SCENARIO_CATALOG.some((s) => s.id === scenario)) notFound();
  return <PresenterDemo scenario={toLabScenario(lessonById(scenario))} />;
}
