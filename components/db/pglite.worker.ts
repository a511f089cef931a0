/// <reference lib="webworker" />
/**
 * The tab's one PostgreSQL: PGlite (Postgres compiled to WebAssembly) in a module worker, so its
 * boot and every query run off the main thread. Protocol: ./protocol.ts.
 */
import { PGlite } from '@electric-sql/pglite';
import { prepareSimDatabase } from '@/simulations/sql-clock';
import type { QueryErrorMessage, WorkerRequest, WorkerResponse } from './protocol';

const scope = self as unknown as DedicatedWorkerGlobalScope;

function post(message: WorkerResponse): void {
  scope.postMessage(message);
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

async function boot(): Promise<PGlite> {
  const ms = () => Math.round(performance.now());
  const scriptLoaded = ms();
  const pg = await PGlite.create();
  const pgliteCreated = ms();
  await prepareSimDatabase(pg);
  const schemaInstalled = ms();
  // The first real query: only once it answers is the database ready.
  const { rows } = await pg.query<{ version: string; operations: number }>(
    'SELECT version() AS version, (SELECT count(*)::int FROM operations) AS operations',
  );
  const first = rows[0];
  if (!first) throw new Error('SELECT version() returned no row');
  const firstQuery = ms();
  post({
    type: 'ready',
    version: first.version,
    bootMs: firstQuery,
    operations: first.operations,
    timings: { scriptLoaded, pgliteCreated, schemaInstalled, firstQuery },
  });
  return pg;
}

const database: Promise<PGlite> = boot();
database.catch((error: unknown) => post({ type: 'error', message: `PGlite failed to boot: ${errorText(error)}` }));

/** PostgreSQL's error fields, where the error has them. */
function sqlError(id: number, error: unknown): QueryErrorMessage {
  const e = error as Partial<Record<'code' | 'detail' | 'hint' | 'position', unknown>>;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const position = Number(text(e?.position));
  return {
    type: 'error',
    id,
    message: errorText(error),
    code: text(e?.code),
    detail: text(e?.detail),
    hint: text(e?.hint),
    position: Number.isFinite(position) && position > 0 ? position : undefined,
  };
}

async function runQuery(id: number, sql: string): Promise<void> {
  let pg: PGlite;
  try {
    pg = await database;
  } catch (error) {
    post({ type: 'error', id, message: `The database is not available: ${errorText(error)}` });
    return;
  }
  const started = performance.now();
  try {
    const results = await pg.exec(sql, { rowMode: 'array' });
    const durationMs = performance.now() - started;
    const last = results.at(-1);
    post({
      type: 'result',
      id,
      fields: (last?.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
      rows: (last?.rows ?? []) as unknown[][],
      command: last?.command,
      rowCount: last?.rowCount ?? last?.affectedRows,
      statements: results.length,
      durationMs,
    });
  } catch (error) {
    post(sqlError(id, error));
  }
}

scope.addEventListener('message', (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  if (request?.type === 'query') void runQuery(request.id, request.sql);
});
