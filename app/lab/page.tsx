import type { Metadata } from 'next';
import Link from 'next/link';
import { LessonList } from '@/components/course/CourseMap';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';

export const metadata: Metadata = { title: 'Labs', description: 'Every lesson’s lab, in course order.' };

/** `/lab/`: the labs in course order (the course map's list, without the introduction). */
export default function LabIndex() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 dark:text-white">Labs</h1>
      <p className="max-w-2xl text-slate-600 dark:text-slate-300">
        Each lab runs a lesson’s consumer against PostgreSQL in your browser, breaks it with the same faults every time, and
        lets you change the code until the duplicate is gone. The <Link href="/" className="font-medium text-teal-800 underline dark:text-teal-300">course map</Link> has the introduction and the questions.
      </p>
      <LessonList lessons={SCENARIO_CATALOG} />
    </div>
  );
}
