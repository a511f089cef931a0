'use client';
/**
 * The 404 page's message. Inside an iframe, or at an /embed/ address, it speaks to whoever wrote
 * the iframe's src rather than to a visitor: no site header or footer in the frame, and the course
 * map opens in a new tab instead of inside the host's frame.
 */
import Link from 'next/link';
import { useEffect, useState } from 'react';

const EMBED_CSS = 'body > header, body > footer { display: none; }';

const button =
  'mt-6 inline-flex rounded-lg bg-teal-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-teal-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400';

export function NotFoundMessage() {
  const [embedded, setEmbedded] = useState(false);
  useEffect(() => {
    setEmbedded(window.parent !== window || window.location.pathname.startsWith('/embed/'));
  }, []);

  if (embedded) {
    return (
      <div className="mx-auto max-w-xl py-8 text-center" data-testid="embed-not-found">
        <style>{EMBED_CSS}</style>
        <p className="font-mono text-sm font-semibold text-teal-700 dark:text-teal-400">404</p>
        <h1 className="mt-2 text-2xl font-bold tracking-tight text-slate-900 dark:text-white">Nothing to embed here</h1>
        <p className="mt-3 text-slate-600 dark:text-slate-400">
          This address names no lesson or question of Effectively Once. Check the iframe’s <code>src</code>: embeds live at{' '}
          <code>/embed/&lt;lesson&gt;/</code> and <code>/embed/quiz/&lt;question&gt;/</code>.
        </p>
        <a href="/" target="_blank" rel="noopener" className={button}>
          Open the course map<span className="sr-only"> (opens in a new tab)</span>
        </a>
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-xl py-16 text-center">
      <p className="font-mono text-sm font-semibold text-teal-700 dark:text-teal-400">404</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight text-slate-900 dark:text-white">No such page</h1>
      <p className="mt-3 text-slate-600 dark:text-slate-400">This address is not part of the course. The lessons are all on the course map.</p>
      <Link href="/" className={button}>
        Go to the course map
      </Link>
    </div>
  );
}
