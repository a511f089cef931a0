'use client';
/** Whether the tab's in-browser PostgreSQL has booted, with its real `SELECT version()`. */
import { useDatabase } from './PgliteProvider';

/** "PostgreSQL 18.1" from "PostgreSQL 18.1 on wasm32-unknown-emscripten, compiled by …". */
export function shortVersion(version: string): string {
  return /^PostgreSQL\s+\S+/.exec(version)?.[0] ?? version;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function DbStatus({ className = '' }: { className?: string }) {
  const db = useDatabase();

  const dot =
    db.status === 'ready'
      ? 'bg-emerald-500'
      : db.status === 'error'
        ? 'bg-rose-500'
        : 'animate-pulse bg-amber-400';

  return (
    <section
      aria-labelledby="db-status-heading"
      data-testid="db-status"
      data-status={db.status}
      data-boot-ms={db.bootMs}
      data-boot-timings={db.timings ? JSON.stringify(db.timings) : undefined}
      data-prebuilt={db.prebuilt === undefined ? undefined : String(db.prebuilt)}
      data-worker-created-ms={db.workerCreatedMs}
      data-worker-early={db.earlyWorker === undefined ? undefined : String(db.earlyWorker)}
      data-worker-start-ms={db.workerStartMs}
      data-explore-workers={db.exploreWorkers}
      className={`min-w-0 rounded-xl border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-800 dark:bg-slate-900 ${className}`}
    >
      <h2 id="db-status-heading" className="sr-only">
        Database status
      </h2>
      <div role="status" aria-live="polite" data-db-restarts={db.restarts} className="flex items-start gap-3">
        <span aria-hidden="true" className={`mt-1.5 inline-block size-2.5 shrink-0 rounded-full ${dot}`} />
        <div className="min-w-0">
          <p className="text-sm font-medium text-slate-900 dark:text-slate-100">
            In-browser PostgreSQL:{' '}
            {db.status === 'ready' && db.version ? (
              <span data-testid="db-status-text">ready ({shortVersion(db.version)})</span>
            ) : db.status === 'error' ? (
              <span data-testid="db-status-text" className="text-rose-700 dark:text-rose-400">
                failed to start
              </span>
            ) : db.restarts > 0 ? (
              <span data-testid="db-status-text">restarting…</span>
            ) : (
              <span data-testid="db-status-text">booting…</span>
            )}
          </p>
          {db.status === 'ready' && db.version && (
            <>
              {db.bootMs !== undefined && (
                <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">
                  Booted in {seconds(db.bootMs)}, in a worker in this tab.
                  {db.exploreWorkers > 1 && ` Explore spreads its schedules over ${db.exploreWorkers} such workers.`}
                </p>
              )}
              <p
                data-testid="db-version"
                className="mt-2 rounded-md bg-slate-50 px-2 py-1.5 font-mono text-[11px] leading-4 [overflow-wrap:anywhere] text-slate-500 dark:bg-slate-950 dark:text-slate-400"
              >
                {db.version}
              </p>
            </>
          )}
          {db.status === 'booting' && (
            <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">
              Loading PostgreSQL compiled to WebAssembly and the lesson&apos;s tables, in a worker in
              this tab.
              <noscript>
                {' '}
                <strong className="font-semibold text-rose-700 dark:text-rose-400">
                  JavaScript is turned off, so the database cannot start.
                </strong>
              </noscript>
            </p>
          )}
          {db.status === 'error' && (
            <p data-testid="db-error" className="mt-1 text-xs break-words text-rose-700 dark:text-rose-400">
              {db.error}
            </p>
          )}
        </div>
      </div>
    </section>
  );
}
