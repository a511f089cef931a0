import type { Metadata } from 'next';
import { LessonIndex } from '@/components/course/LessonIndex';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';

export const metadata: Metadata = { title: 'Embedding the labs' };

/** `/embed/`: what can be framed, for a course author who typed the section's address. */
export default function EmbedIndex() {
  return (
    <div className="mx-auto max-w-5xl space-y-3 py-2">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 dark:text-white">Embedding the labs</h1>
      <p className="max-w-3xl text-slate-700 dark:text-slate-300">
        Every lab below can sit in another site’s iframe at <code className="font-mono text-sm">/embed/&lt;lesson&gt;/</code>, and every
        question at <code className="font-mono text-sm">/embed/quiz/&lt;question&gt;/</code>. Add{' '}
        <code className="font-mono text-sm">?parentOrigin=</code> with your page’s origin to receive its messages (ready,
        run finished, exercise passed, question answered, and its height for resizing).{' '}
        <a href="/embed-example.html" className="font-medium text-teal-800 underline dark:text-teal-300">
          An example host page
        </a>{' '}
        frames one of each and logs what they send.
      </p>
      <LessonIndex lessons={SCENARIO_CATALOG} href={(id) => `/embed/${id}/`} testId="embed-index" />
    </div>
  );
}
