import type { Metadata, Viewport } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { PgliteProvider } from '@/components/db/PgliteProvider';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Effectively Once', template: '%s · Effectively Once' },
  description:
    'A playground for idempotent consumers and the transactional outbox: run real consumer code against PostgreSQL in your browser, watch a duplicate happen, then make it harmless.',
};

export const viewport: Viewport = {
  colorScheme: 'light dark',
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#f8fafc' },
    { media: '(prefers-color-scheme: dark)', color: '#020617' },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-screen flex-col font-sans">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:shadow dark:focus:bg-slate-900"
        >
          Skip to content
        </a>
        <header className="border-b border-slate-200/80 bg-white/80 backdrop-blur dark:border-slate-800 dark:bg-slate-950/80">
          <div className="mx-auto flex h-14 max-w-6xl items-center px-4 sm:px-6">
            <Link
              href="/"
              className="flex items-center gap-2.5 rounded-md font-semibold tracking-tight text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-4 dark:text-white"
            >
              <span
                aria-hidden="true"
                className="grid size-7 place-items-center rounded-lg bg-teal-700 font-mono text-xs font-bold text-white dark:bg-teal-500 dark:text-slate-950"
              >
                1×
              </span>
              Effectively Once
            </Link>
          </div>
        </header>
        <PgliteProvider>
          <main id="main" className="mx-auto w-full max-w-6xl flex-1 px-4 py-10 sm:px-6">
            {children}
          </main>
        </PgliteProvider>
        <footer className="border-t border-slate-200/80 dark:border-slate-800">
          <p className="mx-auto max-w-6xl px-4 py-5 text-xs text-slate-500 sm:px-6 dark:text-slate-400">
            Everything runs in this tab: PostgreSQL (PGlite, compiled to WebAssembly), the editor and
            your code. Nothing is sent to a server.
          </p>
        </footer>
      </body>
    </html>
  );
}
