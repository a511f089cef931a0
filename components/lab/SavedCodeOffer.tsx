'use client';
/**
 * The offer of saved code too large to load without asking ("Your saved code is 2.3 MB —
 * load it anyway / discard"), and, after Discard, its Undo. Until the learner chooses, "Your code"
 * holds the starter and nothing typed there is saved over the large code.
 */
import { useEffect, useRef, useState } from 'react';
import { formatBytes } from './saved-code';
import type { LearnerCode } from './use-learner-code';

const box = 'rounded-xl border px-4 py-3 text-sm leading-6 shadow-sm';
const warn = `${box} border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-500/40 dark:bg-amber-400/10 dark:text-amber-100`;
const btn = 'rounded-md px-3 py-1 text-sm font-semibold shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600';
const plainBtn = `${btn} bg-white text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-800`;

export function SavedCodeOffer({ learner }: { learner: Pick<LearnerCode, 'large' | 'loadLarge' | 'discardLarge'> }) {
  const [undo, setUndo] = useState<(() => void) | null>(null);
  const undoRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (undo) undoRef.current?.focus();
  }, [undo]);
  const { large } = learner;

  if (large) {
    return (
      <section aria-labelledby="large-code-heading" className={warn} data-testid="large-code-offer">
        <h2 id="large-code-heading" className="font-semibold">
          Your saved code is {formatBytes(large.bytes)} ({large.lines.toLocaleString('en')} lines)
        </h2>
        <p>
          That is far more than this lesson needs, and the editor may stop responding for a while if it loads it. It has not been loaded: “Your code”
          shows the starter for now, and nothing you type is saved until you choose.
        </p>
        <div className="mt-2 flex flex-wrap gap-2">
          <button type="button" className={plainBtn} onClick={learner.loadLarge}>
            Load it anyway
          </button>
          <button type="button" className={plainBtn} onClick={() => setUndo(() => learner.discardLarge())}>
            Discard it
          </button>
        </div>
      </section>
    );
  }
  if (!undo) return null;
  return (
    <div className={warn} data-testid="large-code-discarded">
      <p role="status">The large saved code was discarded.</p>
      <div className="mt-2 flex flex-wrap gap-2">
        <button
          ref={undoRef}
          type="button"
          className={plainBtn}
          onClick={() => {
            undo();
            setUndo(null);
          }}
        >
          Undo
        </button>
        <button type="button" className={plainBtn} onClick={() => setUndo(null)}>
          Dismiss
        </button>
      </div>
    </div>
  );
}
