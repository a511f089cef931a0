'use client';
/**
 * "Library code this uses": each function the shown code imports from 'effectively-once', as a
 * button that opens its real source at its definition — the way in for those who do not know
 * F12. Follows the code as the learner types; nothing when it imports no library function.
 */
import { useMemo } from 'react';
import { LIBRARY_EXPORTS } from '@/simulations/learner/library-exports.generated';
import { libraryImports, type LibraryLocation } from './library';

export interface LibraryLinksProps {
  /** The code shown in the editor. */
  code: string;
  onOpen(at: LibraryLocation): void;
  /** Whether the editor offers F12 (the full editor): the line says so. */
  f12: boolean;
}

export function LibraryLinks({ code, onOpen, f12 }: LibraryLinksProps) {
  const links = useMemo(() => libraryImports(code, LIBRARY_EXPORTS), [code]);
  if (links.length === 0) return null;
  return (
    <nav aria-labelledby="library-links-heading" data-testid="library-links" className="flex flex-wrap items-baseline gap-x-3 gap-y-1 border-b border-slate-200 px-4 py-1.5 text-xs text-slate-600 dark:border-slate-800 dark:text-slate-300">
      <h3 id="library-links-heading" className="font-medium">
        Library code this uses{f12 && <span className="font-normal"> (or <kbd className="font-sans">F12</kbd> on a name)</span>}:
      </h3>
      <ul className="contents">
        {links.map((link) => (
          <li key={link.local}>
            <button
              type="button"
              onClick={() => onOpen(link)}
              data-library-link={link.local}
              className="rounded font-mono text-teal-800 underline underline-offset-4 hover:text-teal-950 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:text-teal-300 dark:hover:text-teal-100"
            >
              {link.local}
              <span aria-hidden="true"> → </span>
              <span className="sr-only"> in </span>
              {link.file}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
