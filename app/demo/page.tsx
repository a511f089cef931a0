import type { Metadata } from 'next';
import { LessonIndex } from '@/components/course/LessonIndex';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';

export const metadata: Metadata = { title: 'Presenter mode' };

/** `/demo/`: the lessons' presenter pages, for an instructor who typed the section's address. */
export default function DemoIndex() {
  return (
    <div className="mx-auto max-w-5xl space-y-3 py-4">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900 dark:text-white">Presenter mode</h1>
      <p className="max-w-3xl text-lg text-slate-700 dark:text-slate-300">
        Each lesson’s demonstration, full width and in large type for a projector. A clicker’s next and previous (or → and ←)
        step through it one event at a time; Space plays and pauses, R starts again. F shows the fix: what the solution changes
        in the starter, line by line. X explores the starter and the solution over the same 200 schedules, to show the room the
        demonstration was one of many.
      </p>
      <LessonIndex lessons={SCENARIO_CATALOG} href={(id) => `/demo/${id}/`} testId="demo-index" />
    </div>
  );
}
