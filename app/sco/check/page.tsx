import type { Metadata } from 'next';
import { PlatformCheck } from '@/components/platform/PlatformLesson';

export const metadata: Metadata = { title: 'Check yourself' };

/** The lesson's general questions as a course platform launches them. */
export default function ScoCheckPage() {
  return (
    <div className="max-w-3xl space-y-6">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 dark:text-white">Check yourself</h1>
      <PlatformCheck />
    </div>
  );
}
