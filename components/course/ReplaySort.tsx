'use client';
/**
 * The replay-safety sorting exercise: put each operation of the lesson's table into a bin — safe
 * to replay, needs an idempotency key, needs dedupe — with one native radio group per operation
 * (arrow keys move within a row, Tab moves between rows), then check. Each row then says whether
 * it was right and what a replay of that operation really costs. Choices and the score are saved.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { REPLAY_BINS, REPLAY_OPERATIONS, type ReplayBin } from '@/simulations/lessons/replay-safety/sorting';
import { recordSorting, useProgress } from './progress';

export function ReplaySort() {
  const saved = useProgress().sorting;
  const [choices, setChoices] = useState<Record<string, ReplayBin>>({});
  const [checked, setChecked] = useState(false);
  const restored = useRef(false);
  const uid = useId();
  // The notes that open under each row push the score below the screen: bring it back into
  // view after a Check, with the button beside it, where the keyboard still is.
  const result = useRef<HTMLParagraphElement>(null);
  const justChecked = useRef(false);
  useEffect(() => {
    if (!checked || !justChecked.current) return;
    justChecked.current = false;
    result.current?.scrollIntoView({ block: 'nearest' });
  }, [checked]);

  useEffect(() => {
    if (restored.current || !saved) return;
    restored.current = true;
    const valid = Object.fromEntries(
      Object.entries(saved.choices).filter(([op, bin]) => REPLAY_OPERATIONS.some((o) => o.id === op) && REPLAY_BINS.some((b) => b.id === bin)),
    ) as Record<string, ReplayBin>;
    setChoices(valid);
    setChecked(REPLAY_OPERATIONS.every((o) => valid[o.id]));
  }, [saved]);

  const answered = REPLAY_OPERATIONS.filter((o) => choices[o.id]).length;
  const right = REPLAY_OPERATIONS.filter((o) => choices[o.id] === o.bin).length;
  const complete = answered === REPLAY_OPERATIONS.length;

  function choose(op: string, bin: ReplayBin) {
    restored.current = true;
    setChecked(false);
    setChoices((c) => ({ ...c, [op]: bin }));
  }

  function check() {
    restored.current = true;
    justChecked.current = true;
    setChecked(true);
    recordSorting(choices, right, REPLAY_OPERATIONS.length);
  }

  const binLabel = (id: ReplayBin) => REPLAY_BINS.find((b) => b.id === id)?.label ?? id;

  return (
    <section
      aria-labelledby={`${uid}-h`}
      data-testid="replay-sort"
      className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 id={`${uid}-h`} className="text-lg font-semibold text-slate-900 dark:text-white">
        Sort the operations: what does a replay cost?
      </h2>
      <p className="mt-1 text-sm leading-6 text-slate-600 dark:text-slate-300">
        A retry, a redelivery or a rerun runs an operation a second time. For each one, choose where it belongs.
      </p>
      <dl className="mt-3 grid gap-2 text-xs leading-5 text-slate-600 sm:grid-cols-3 dark:text-slate-300">
        {REPLAY_BINS.map((b) => (
          <div key={b.id} className="rounded-lg bg-slate-50 px-3 py-2 dark:bg-slate-800/60">
            <dt className="font-semibold text-slate-800 dark:text-slate-100">{b.label}</dt>
            <dd>{b.meaning}</dd>
          </div>
        ))}
      </dl>

      <form
        className="mt-4"
        onSubmit={(event) => {
          event.preventDefault();
          if (complete) check();
        }}
      >
        <ol className="divide-y divide-slate-200 dark:divide-slate-800">
          {REPLAY_OPERATIONS.map((op) => {
            const chosen = choices[op.id];
            const ok = checked && chosen === op.bin;
            const wrong = checked && chosen !== undefined && chosen !== op.bin;
            return (
              <li key={op.id} data-testid="sort-item" data-operation={op.id} data-result={checked ? (ok ? 'right' : 'wrong') : 'open'} className="py-3">
                <fieldset>
                  <legend className="text-sm font-medium text-slate-900 dark:text-slate-100">{op.label}</legend>
                  <div className="mt-2 flex flex-wrap gap-2">
                    {REPLAY_BINS.map((b) => (
                      <label
                        key={b.id}
                        className={`flex min-h-11 cursor-pointer items-center gap-2 rounded-lg border px-3 py-1.5 text-sm sm:min-h-0 sm:px-2.5 sm:py-1 sm:text-xs has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-teal-600 ${
                          chosen === b.id
                            ? 'border-teal-500 bg-teal-50 text-slate-900 dark:border-teal-400 dark:bg-teal-400/10 dark:text-slate-100'
                            : 'border-slate-200 text-slate-700 hover:border-slate-300 dark:border-slate-700 dark:text-slate-300 dark:hover:border-slate-600'
                        }`}
                      >
                        <input
                          type="radio"
                          name={`${uid}-${op.id}`}
                          value={b.id}
                          checked={chosen === b.id}
                          onChange={() => choose(op.id, b.id)}
                          className="size-4 accent-teal-700 sm:size-3.5 focus-visible:outline-none dark:accent-teal-400"
                        />
                        {b.label}
                      </label>
                    ))}
                  </div>
                </fieldset>
                {checked && chosen !== undefined && (
                  <p
                    className={`mt-2 rounded-md px-3 py-1.5 text-xs leading-5 ${
                      ok ? 'bg-emerald-50 text-emerald-950 ring-1 ring-emerald-300/70 dark:bg-emerald-500/10 dark:text-emerald-50 dark:ring-emerald-400/40' : 'bg-amber-50 text-amber-950 ring-1 ring-amber-300/70 dark:bg-amber-400/10 dark:text-amber-50 dark:ring-amber-400/50'
                    }`}
                  >
                    <strong>{ok ? '✓ Right.' : `✗ It belongs in “${binLabel(op.bin)}”.`}</strong> Replay cost: {op.replayCost}
                    {!ok && op.halfRight?.bin === chosen && <span className="mt-1 block" data-testid="sort-half-right">{op.halfRight.note}</span>}
                  </p>
                )}
                {wrong && <span className="sr-only">Your choice was {binLabel(chosen)}.</span>}
              </li>
            );
          })}
        </ol>
        <div className="mt-3 flex flex-wrap items-center gap-3">
          <button
            type="submit"
            disabled={!complete}
            className="rounded-lg bg-teal-700 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-teal-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 disabled:cursor-not-allowed disabled:bg-slate-300 disabled:text-slate-600 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400 dark:disabled:bg-slate-700 dark:disabled:text-slate-300"
          >
            Check my sorting
          </button>
          <p ref={result} role="status" aria-live="polite" data-testid="sort-result" className="text-sm text-slate-700 dark:text-slate-300">
            {checked
              ? `${right} of ${REPLAY_OPERATIONS.length} in the right bin.${right === REPLAY_OPERATIONS.length ? ' Every operation sorted.' : ' The notes under each row say why.'}`
              : `${answered} of ${REPLAY_OPERATIONS.length} sorted.`}
          </p>
        </div>
      </form>
    </section>
  );
}
