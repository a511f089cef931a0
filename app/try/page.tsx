import type { Metadata } from 'next';
import Link from 'next/link';
import { TryIt } from '@/components/course/TryIt';

export const metadata: Metadata = {
  title: 'Try it: signatures and keys',
  description: 'HMAC-SHA256 and SHA-256 computed in your browser: the same input gives the same output every time, and an operation key is just a SHA-256.',
};

export default function TryPage() {
  return (
    <div className="space-y-8">
      <nav aria-label="Breadcrumb" className="text-sm text-slate-500 dark:text-slate-400">
        <Link href="/" className="rounded hover:text-teal-700 focus-visible:outline-2 dark:hover:text-teal-400">
          Course map
        </Link>
      </nav>
      <header className="max-w-3xl">
        <h1 className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl dark:text-white">Try it: signatures and keys</h1>
        <p className="mt-3 text-base leading-7 text-slate-600 dark:text-slate-300">
          Everything below is computed in this tab; nothing is sent anywhere. Change the inputs and the results follow as you type.
        </p>
      </header>
      <TryIt />
    </div>
  );
}
