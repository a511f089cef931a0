/// <reference lib="webworker" />
/**
 * The database worker's entry, kept small on purpose: it starts downloading (and compiling) what
 * PGlite's boot needs, and only then loads PGlite and the engine (./worker-main.ts, a few hundred
 * KB of script), so the two overlap instead of queueing. Requests that arrive meanwhile are handed
 * over in order once the main module is up.
 */
import { startBootAssets } from './boot-assets';
import type { WorkerRequest, WorkerResponse } from './protocol';

const entryMs = performance.now();
const scope = self as unknown as DedicatedWorkerGlobalScope;

// Turbopack turns each `new URL(…, import.meta.url)` into a hashed static asset of the build (the
// same files PGlite itself would fetch; the data directory comes from scripts/build-datadir.ts).
const assets = startBootAssets({
  wasm: new URL('../../node_modules/@electric-sql/pglite/dist/pglite.wasm', import.meta.url),
  fsBundle: new URL('../../node_modules/@electric-sql/pglite/dist/pglite.data', import.meta.url),
  dataDir: new URL('../../generated/pglite-datadir.tar.gz', import.meta.url),
});

const handler = import('./worker-main').then((main) => main.startWorker(assets, entryMs));
const loadFailure = (error: unknown) => `The database worker could not load: ${error instanceof Error ? error.message : String(error)}`;
handler.catch((error: unknown) => scope.postMessage({ type: 'error', message: loadFailure(error) } satisfies WorkerResponse));

// Listening from the first task, so no request is dropped while the main module loads.
scope.addEventListener('message', (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  handler.then(
    (handle) => handle(request),
    (error: unknown) => {
      if (request.type !== 'cancel') scope.postMessage({ type: 'error', id: request.id, message: loadFailure(error) } satisfies WorkerResponse);
    },
  );
});
