/// <reference lib="webworker" />
/**
 * The database worker's entry, kept small on purpose: it starts downloading (and compiling) what
 * PGlite's boot needs, and only then loads PGlite and the engine (./worker-main.ts, a few hundred
 * KB of script), so the two overlap instead of queueing. Requests that arrive meanwhile are handed
 * over in order once the main module is up.
 */
import { startBootAssets, type PageWasm } from './boot-assets';
import { isEarlyWasm, WASM_FROM_PAGE_SUFFIX } from './early-worker';
import type { WorkerRequest, WorkerResponse } from './protocol';

const entryMs = performance.now();
const scope = self as unknown as DedicatedWorkerGlobalScope;

// Started by a page whose HTML compiles PGlite's WebAssembly (./early-worker.ts): its one message
// brings the module (or why there is none), and the worker does not download it as well.
let fromPage: (answer: PageWasm) => void = () => {};
const pageWasm = scope.name.endsWith(WASM_FROM_PAGE_SUFFIX) ? new Promise<PageWasm>((resolve) => (fromPage = resolve)) : undefined;

// Turbopack turns each `new URL(…, import.meta.url)` into a hashed static asset of the build (the
// same files PGlite itself would fetch; the data directory comes from scripts/build-datadir.ts).
const assets = startBootAssets({
  wasm: new URL('../../node_modules/@electric-sql/pglite/dist/pglite.wasm', import.meta.url),
  fsBundle: new URL('../../node_modules/@electric-sql/pglite/dist/pglite.data', import.meta.url),
  dataDir: new URL('../../generated/pglite-datadir.tar', import.meta.url),
}, pageWasm);

const handler = import('./worker-main').then((main) => main.startWorker(assets, entryMs));
const loadFailure = (error: unknown) => `The database worker could not load: ${error instanceof Error ? error.message : String(error)}`;
handler.catch((error: unknown) => scope.postMessage({ type: 'error', message: loadFailure(error) } satisfies WorkerResponse));

// Listening from the first task, so no request is dropped while the main module loads.
scope.addEventListener('message', (event: MessageEvent<unknown>) => {
  const data = event.data;
  if (isEarlyWasm(data)) {
    fromPage('module' in data ? { module: data.module, at: data.at } : { reason: data.reason, at: data.at });
    return;
  }
  const request = data as WorkerRequest;
  handler.then(
    (handle) => handle(request),
    (error: unknown) => {
      if (request.type !== 'cancel') scope.postMessage({ type: 'error', id: request.id, message: loadFailure(error) } satisfies WorkerResponse);
    },
  );
});
