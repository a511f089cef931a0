'use client';
/**
 * The polite notice that some of the progress saved in this browser could not be read: which parts
 * were left out (each in the learner's words), that everything else is kept, and an OK that stores
 * the progress without them. Renders nothing while all of it was readable.
 */
import { useId } from 'react';
import { dismissDroppedProgress, useDroppedProgress } from './progress';

export function StoredDataNotice() {
  const dropped = useDroppedProgress();
  const uid = useId();
  if (dropped.length === 0) return null;
  return (
    <section
      role="status"
      aria-labelledby={`${uid}-h`}
      data-testid="stored-data-notice"
      className="rounded-xl border border-amber-300 bg-amber-50 px-4 py-3 text-sm leading-6 text-amber-950 shadow-sm dark:border-amber-500/40 dark:bg-amber-400/10 dark:text-amber-100"
    >
      <h2 id={`${uid}-h`} className="font-semibold">
        Part of your saved progress could not be read
      </h2>
      <p>It was left out; everything else you did is kept. What was left out:</p>
      <ul className="mt-1 list-disc pl-5">
        {dropped.map((d) => (
          <li key={d.path}>{d.text}</li>
        ))}
      </ul>
      <button
        type="button"
        onClick={dismissDroppedProgress}
        className="mt-2 rounded-md bg-white px-3 py-1 text-sm font-semibold text-slate-800 shadow-sm ring-1 ring-slate-300 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-800"
      >
        OK, forget those parts
      </button>
    </section>
  );
}
