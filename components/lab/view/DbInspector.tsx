/**
 * The scenario's tables as they stood at the selected event, rows the event added or changed
 * marked (by a badge, not colour alone). Long keys are shortened with the full value on hover;
 * longer text is cut, whole on hover and to a screen reader;
 * timestamps read as simulated time since the run started.
 */
import { Fragment, type ReactNode } from 'react';
import type { LabRun } from '@/simulations/run/lab-run';
import { formatCell, openTransactionsAt, tableChange, tablesAt } from './snapshots';

export interface DbInspectorProps {
  run: LabRun;
  /** The tables to show, in order. */
  tables: string[];
  /** The selected trace event index. */
  selected: number;
}

/** JSON with a line-break opportunity after each comma, so a wrapped result breaks between fields. */
function breakAfterCommas(text: string): ReactNode {
  const parts = text.split(/(?<=,)/);
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 && <wbr />}
    </Fragment>
  ));
}

const CELL_TONE = {
  null: 'italic text-slate-500 dark:text-slate-400',
  key: 'font-mono text-slate-800 dark:text-slate-200',
  time: 'font-mono text-slate-700 dark:text-slate-300',
  json: 'font-mono text-slate-700 dark:text-slate-300',
  number: 'font-mono tabular-nums text-slate-800 dark:text-slate-200',
  text: 'text-slate-800 dark:text-slate-200',
} as const;

export function DbInspector({ run, tables, selected }: DbInspectorProps) {
  const snapshot = tablesAt(run, selected);
  const open = openTransactionsAt(run, selected);
  if (tables.length === 0) {
    // A scenario that keeps no state of its own (a batch of transformations): say so, rather than an empty column.
    return <p className="text-sm text-slate-500 dark:text-slate-400">This scenario keeps no tables of its own: everything it did is in the ledger.</p>;
  }
  return (
    <div className="space-y-4">
      <p className="text-xs text-slate-500 dark:text-slate-400">
        {selected >= 0 ? `As the tables stood after event ${selected + 1} of ${run.result.trace.length}.` : 'Before the first event: every table starts empty.'} Times are simulated, from the run’s start.
      </p>
      {open.length > 0 && (
        <p data-testid="open-transaction" className="rounded-lg bg-amber-50 px-3 py-2 text-xs leading-5 text-amber-900 dark:bg-amber-400/10 dark:text-amber-200">
          <strong className="font-semibold">{open.join(' and ')} {open.length === 1 ? 'has a transaction' : 'have transactions'} open:</strong> what{' '}
          {open.length === 1 ? 'it has' : 'they have'} written here is not committed. You see it because the inspector reads on the
          same connection; any other connection still sees the tables without it, and a crash or a ROLLBACK takes it away.
        </p>
      )}
      {tables.map((name) => {
        const rows = snapshot[name] ?? [];
        const change = tableChange(run, name, selected);
        const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
        const changedCount = change.rows.size;
        return (
          <div key={name} className="overflow-hidden rounded-lg border border-slate-200 dark:border-slate-800">
            <div className="overflow-x-auto">
              <table className="w-full border-collapse text-left text-sm">
                <caption className="border-b border-slate-200 bg-slate-50 px-3 py-2 text-left dark:border-slate-800 dark:bg-slate-800/50">
                  <span className="font-mono text-sm font-semibold text-slate-900 dark:text-slate-100">{name}</span>
                  {/* A space for the accessible name ("operations, 1 row", not "operations1 row"); the margin does the rest. */}
                  <span className="sr-only">, </span>
                  <span className="ml-2 text-xs text-slate-500 dark:text-slate-400">
                    {rows.length === 0 ? 'no rows' : `${rows.length} ${rows.length === 1 ? 'row' : 'rows'}`}
                    {changedCount > 0 && ` · ${changedCount} changed at this step`}
                    {change.removed > 0 && ` · ${change.removed} removed at this step`}
                  </span>
                </caption>
                {rows.length > 0 && (
                  <>
                    <thead>
                      <tr className="border-b border-slate-200 dark:border-slate-800">
                        <th scope="col" className="w-px px-3 py-1.5">
                          <span className="sr-only">Change</span>
                        </th>
                        {columns.map((c) => (
                          <th key={c} scope="col" className="px-3 py-1.5 font-mono text-xs font-medium whitespace-nowrap text-slate-500 dark:text-slate-400">
                            {c}
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((row, k) => {
                        const mark = change.rows.get(k);
                        return (
                          <tr
                            key={k}
                            className={`border-b border-slate-100 last:border-b-0 dark:border-slate-800 ${mark ? 'bg-amber-50 dark:bg-amber-400/10' : ''}`}
                          >
                            <td className="px-3 py-1.5 align-top">
                              {mark && (
                                <span className="inline-block rounded bg-amber-200 px-1.5 py-0.5 text-[10px] font-semibold tracking-wide text-amber-900 uppercase dark:bg-amber-400/25 dark:text-amber-200">
                                  {mark}
                                </span>
                              )}
                            </td>
                            {columns.map((c, ci) => {
                              const cell = formatCell(row[c]);
                              const Tag = ci === 0 ? 'th' : 'td';
                              return (
                                <Tag
                                  key={c}
                                  scope={ci === 0 ? 'row' : undefined}
                                  title={cell.title}
                                  // JSON (a stored result) wraps, anywhere if it must: at 1366 px the operations
                                  // table's result column was cut off with nothing to say it scrolls.
                                  className={`px-3 py-1.5 align-top font-normal ${cell.kind === 'json' ? 'min-w-40 whitespace-normal [overflow-wrap:anywhere]' : 'whitespace-nowrap'} ${CELL_TONE[cell.kind]}`}
                                >
                                  {cell.clipped ? (
                                    <>
                                      <span aria-hidden="true">{cell.kind === 'json' ? breakAfterCommas(cell.text) : cell.text}</span>
                                      <span className="sr-only">{cell.title}</span>
                                    </>
                                  ) : cell.kind === 'json' ? (
                                    breakAfterCommas(cell.text)
                                  ) : (
                                    cell.text
                                  )}
                                </Tag>
                              );
                            })}
                          </tr>
                        );
                      })}
                    </tbody>
                  </>
                )}
              </table>
            </div>
            {rows.length === 0 && (
              <p className="px-3 py-3 text-sm text-slate-500 dark:text-slate-400">
                No rows in {name} at this step.
                {(run.columns?.[name]?.length ?? 0) > 0 && (
                  <>
                    {' '}
                    Its columns: <span className="font-mono text-slate-700 dark:text-slate-300">{run.columns![name]!.join(', ')}</span>.
                  </>
                )}
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}
