'use client';
/** Run SQL against the tab's PGlite and show the rows, or PostgreSQL's error. */
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useDatabase } from '@/components/db/PgliteProvider';
import { SqlError, type QueryResult } from '@/components/db/protocol';
import { QueryStoppedError } from '@/components/db/worker-client';

type Outcome =
  | { kind: 'idle' }
  | { kind: 'running' }
  | { kind: 'result'; result: QueryResult }
  | { kind: 'error'; error: SqlError; sql: string }
  | { kind: 'stopped'; message: string };

/** How long a query runs before the panel offers to stop it (most answer in a few ms). */
export const OFFER_STOP_AFTER_MS = 700;

/** A value as psql would roughly show it. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Array.from(value, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The line of `sql` holding 1-based character `position`, and the column within it. */
function locate(sql: string, position: number): { line: number; text: string; column: number } {
  const before = sql.slice(0, position - 1);
  const line = before.split('\n').length;
  const start = before.lastIndexOf('\n') + 1;
  const end = sql.indexOf('\n', start);
  return { line, text: sql.slice(start, end === -1 ? undefined : end), column: position - 1 - start };
}

function summary(result: QueryResult): string {
  const rows = result.rowCount ?? result.rows.length;
  const parts = [result.command ?? 'OK', `${rows} ${rows === 1 ? 'row' : 'rows'}`, `${result.durationMs.toFixed(1)} ms`];
  if (result.statements > 1) parts.push(`last of ${result.statements} statements`);
  return parts.join(' · ');
}

export function QueryPanel({ initialSql = 'SELECT * FROM operations' }: { initialSql?: string }) {
  const db = useDatabase();
  const [sql, setSql] = useState(initialSql);
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const sqlId = useId();
  const hintId = useId();
  const sqlBox = useRef<HTMLTextAreaElement>(null);
  /** The query has run long enough to offer Stop (reset whenever a query starts). */
  const [slow, setSlow] = useState(false);
  const running = outcome.kind === 'running';
  const ready = db.status === 'ready';

  useEffect(() => {
    setSlow(false);
    if (!running || !ready) return;
    const timer = setTimeout(() => setSlow(true), OFFER_STOP_AFTER_MS);
    return () => clearTimeout(timer);
  }, [running, ready]);

  async function run() {
    const text = sql;
    if (!text.trim() || running) return;
    setOutcome({ kind: 'running' });
    try {
      setOutcome({ kind: 'result', result: await db.query(text) });
    } catch (error) {
      if (error instanceof QueryStoppedError) {
        setOutcome({ kind: 'stopped', message: error.message });
        return;
      }
      const sqlError = error instanceof SqlError ? error : new SqlError({ message: String(error) });
      setOutcome({ kind: 'error', error: sqlError, sql: text });
    }
  }

  function stop() {
    // The button goes away with the query: keep the keyboard's place, in the SQL box.
    sqlBox.current?.focus();
    db.stopQuery();
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void run();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void run();
    }
  }

  return (
    <section
      aria-labelledby="query-heading"
      data-testid="query-panel"
      className="rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="border-b border-slate-200 px-4 py-3 dark:border-slate-800">
        <h2 id="query-heading" className="text-sm font-semibold text-slate-900 dark:text-slate-100">
          Run a query
        </h2>
        <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">
          Real SQL against the PostgreSQL in this tab: the <code className="font-mono">operations</code>,{' '}
          <code className="font-mono">orders</code> and <code className="font-mono">outbox</code> tables. Every run starts
          from the lesson&rsquo;s schema with empty tables: tables you create or change here, and settings you{' '}
          <code className="font-mono">SET</code>, are put back when the next run starts (a handler that needs a table of
          its own can create it itself).
        </p>
      </div>
      <form onSubmit={onSubmit} className="space-y-3 p-4">
        <div>
          <label htmlFor={sqlId} className="block text-xs font-medium text-slate-700 dark:text-slate-300">
            SQL
          </label>
          <textarea
            id={sqlId}
            ref={sqlBox}
            value={sql}
            onChange={(e) => setSql(e.target.value)}
            onKeyDown={onKeyDown}
            aria-describedby={hintId}
            rows={4}
            spellCheck={false}
            autoCapitalize="off"
            autoCorrect="off"
            className="mt-1 block w-full resize-y rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-[13px] leading-5 text-slate-900 shadow-inner outline-none focus:border-teal-500 focus:ring-2 focus:ring-teal-500/30 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
          />
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <button
            type="submit"
            disabled={running || !sql.trim()}
            className="inline-flex items-center gap-2 rounded-lg bg-teal-700 px-3.5 py-2 text-sm font-semibold text-white shadow-sm hover:bg-teal-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 disabled:cursor-not-allowed disabled:opacity-60 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400"
          >
            {running ? 'Running…' : 'Run query'}
          </button>
          {running && slow && (
            <button
              type="button"
              onClick={stop}
              className="inline-flex items-center rounded-lg border border-rose-300 bg-white px-3.5 py-2 text-sm font-semibold text-rose-700 shadow-sm hover:bg-rose-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-rose-600 dark:border-rose-500/50 dark:bg-slate-900 dark:text-rose-300 dark:hover:bg-rose-500/10"
            >
              Stop query
            </button>
          )}
          <p id={hintId} className="text-xs text-slate-500 dark:text-slate-400">
            or press <kbd className="rounded border border-slate-300 px-1 font-sans dark:border-slate-600">Ctrl</kbd>+
            <kbd className="rounded border border-slate-300 px-1 font-sans dark:border-slate-600">Enter</kbd> in the box
            {db.status === 'booting' && <> · the query runs once the database has booted</>}
          </p>
        </div>
      </form>
      <div aria-live="polite" className="border-t border-slate-200 dark:border-slate-800">
        {outcome.kind === 'result' && <ResultTable result={outcome.result} />}
        {outcome.kind === 'error' && <ErrorBox error={outcome.error} sql={outcome.sql} />}
        {running && (
          <p className="px-4 py-3 text-xs text-slate-500 dark:text-slate-400">
            {db.status === 'booting'
              ? 'Waiting for the database to boot…'
              : slow
                ? 'Still running. Stop query restarts the tab’s database (a few seconds); a run you start meanwhile waits for this query.'
                : 'Running…'}
          </p>
        )}
        {outcome.kind === 'stopped' && (
          <p data-testid="query-stopped" className="m-4 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-100">
            {outcome.message}
          </p>
        )}
        {outcome.kind === 'idle' && (
          <p className="px-4 py-3 text-xs text-slate-500 dark:text-slate-400">Results appear here.</p>
        )}
      </div>
    </section>
  );
}

/** Rows a result shows at first, and how many more each "Show more" adds: a long result stays one screen, not 5,000 rows of page. */
export const QUERY_ROWS_SHOWN = 200;

function ResultTable({ result }: { result: QueryResult }) {
  const [shown, setShown] = useState(QUERY_ROWS_SHOWN);
  const hidden = result.rows.length - shown;
  return (
    <div data-testid="query-result">
      <p className="px-4 pt-3 text-xs text-slate-500 dark:text-slate-400">{summary(result)}</p>
      {result.fields.length > 0 ? (
        <div className="m-4 mt-2 overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-800">
          <table className="min-w-full text-left font-mono text-xs">
            <thead className="bg-slate-50 text-slate-600 dark:bg-slate-950 dark:text-slate-400">
              <tr>
                {result.fields.map((field, i) => (
                  <th key={i} scope="col" className="px-3 py-2 font-semibold whitespace-nowrap">
                    {field.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {result.rows.length === 0 ? (
                <tr>
                  <td colSpan={result.fields.length} className="px-3 py-3 font-sans text-slate-500 italic dark:text-slate-400">
                    No rows.
                  </td>
                </tr>
              ) : (
                result.rows.slice(0, shown).map((row, r) => (
                  <tr key={r} className="text-slate-800 dark:text-slate-200">
                    {row.map((value, c) => (
                      <td
                        key={c}
                        className={`px-3 py-1.5 whitespace-pre ${value === null ? 'text-slate-400 italic dark:text-slate-500' : ''}`}
                      >
                        {formatValue(value)}
                      </td>
                    ))}
                  </tr>
                ))
              )}
            </tbody>
          </table>
          {hidden > 0 && (
            <p data-testid="query-more" className="flex flex-wrap items-center gap-3 border-t border-slate-200 px-3 py-2 font-sans text-xs text-slate-600 dark:border-slate-800 dark:text-slate-400">
              {hidden.toLocaleString('en')} more {hidden === 1 ? 'row' : 'rows'} not shown.
              <button
                type="button"
                onClick={() => setShown((n) => n + QUERY_ROWS_SHOWN)}
                className="rounded font-semibold text-teal-800 underline underline-offset-4 focus-visible:outline-2 focus-visible:outline-offset-2 dark:text-teal-300"
              >
                Show {Math.min(hidden, QUERY_ROWS_SHOWN)} more
              </button>
            </p>
          )}
        </div>
      ) : (
        <div className="pb-3" />
      )}
    </div>
  );
}

function ErrorBox({ error, sql }: { error: SqlError; sql: string }) {
  const where = error.position ? locate(sql, error.position) : null;
  return (
    <div
      role="alert"
      data-testid="query-error"
      className="m-4 rounded-lg border border-rose-200 bg-rose-50 p-3 text-sm text-rose-900 dark:border-rose-900/60 dark:bg-rose-950/40 dark:text-rose-200"
    >
      <p className="font-semibold">
        ERROR{error.code ? ` ${error.code}` : ''}: <span className="font-normal">{error.message}</span>
      </p>
      {where && (
        <pre className="mt-2 overflow-x-auto font-mono text-xs leading-5" aria-label={`At line ${where.line}, column ${where.column + 1}`}>
          {`LINE ${where.line}: ${where.text}\n${' '.repeat(`LINE ${where.line}: `.length + where.column)}^`}
        </pre>
      )}
      {error.detail && <p className="mt-1 text-xs">DETAIL: {error.detail}</p>}
      {error.hint && <p className="mt-1 text-xs">HINT: {error.hint}</p>}
    </div>
  );
}
