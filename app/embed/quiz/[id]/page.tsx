import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { EmbedQuiz } from '@/components/embed/EmbedQuiz';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';
import { questionById, QUESTIONS } from '@/simulations/lessons/catalog';

export const dynamicParams = false;

export function generateStaticParams(): { id: string }[] {
  return QUESTIONS.map((q) => ({ id: q.id }));
}

interface QuizEmbedProps {
  params: Promise<{ id: string }>;
}

function titleOf(id: string): string | null {
  const question = questionById(id);
  if (!question) return null;
  const scenario = SCENARIO_CATALOG.find((s) => s.id === question.scenario);
  return scenario ? `Check yourself: ${scenario.title}` : 'Check yourself';
}

export async function generateMetadata({ params }: QuizEmbedProps): Promise<Metadata> {
  const title = titleOf((await params).id);
  return title ? { title: `${title} (embedded question)` } : {};
}

export default async function QuizEmbedPage({ params }: QuizEmbedProps) {
  const { id } = await params;
  const title = titleOf(id);
  if (title === null) notFound();
  return <EmbedQuiz questionId={id} title={title} />;
}
