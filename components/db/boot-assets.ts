/// <reference lib="webworker" />
/**
 * The three downloads a PGlite boot waits on — the WebAssembly module, the file-system bundle and
 * the prebuilt data directory — started the moment the worker's first script runs, before the
 * worker loads PGlite's JavaScript and the engine. The module compiles while it streams in. Each
 * one that fails resolves to `undefined` with the reason: PGlite then fetches that part itself
 * (or, for the data directory, runs initdb), so a missing asset costs time, never the boot.
 *
 * This module stays tiny and imports nothing: it is in the worker's first chunk.
 */

/** What the boot gets from the early downloads. */
export interface BootAssets {
  wasmModule: Promise<Loaded<WebAssembly.Module>>;
  fsBundle: Promise<Loaded<Blob>>;
  dataDir: Promise<Loaded<Blob>>;
}

/**
 * An asset, or why it is missing; `ms` is when it was ready, on the worker's clock, and `by` who
 * made it (the WebAssembly module can come compiled from the page).
 */
export type Loaded<T> = { value: T; ms: number; by?: 'page' | 'worker' } | { value: undefined; ms: number; reason: string };

/** Where the assets are, as Turbopack emits them (hashed names next to the worker's chunks). */
export interface BootAssetUrls {
  wasm: URL;
  fsBundle: URL;
  dataDir: URL;
}

async function settle<T>(work: () => Promise<T>): Promise<Loaded<T>> {
  try {
    const value = await work();
    return { value, ms: performance.now() };
  } catch (error) {
    return { value: undefined, ms: performance.now(), reason: error instanceof Error ? error.message : String(error) };
  }
}

async function ok(url: URL): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  return response;
}

async function compileWasm(url: URL): Promise<WebAssembly.Module> {
  const response = await ok(url);
  // Streaming compile needs `application/wasm`; a host that says otherwise gets the slower path.
  if (typeof WebAssembly.compileStreaming === 'function' && response.headers.get('Content-Type')?.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

/**
 * A download as a Blob. For a network response Chromium drains the body into the Blob without this
 * thread: the data directory (a plain tar, sent gzipped by any host that serves the build's `.gz`
 * twins, and inflated by the browser's network service) is ready the moment the worker gets to it,
 * instead of being inflated here in JavaScript after PGlite's code has loaded.
 */
async function blob(url: URL): Promise<Blob> {
  return (await ok(url)).blob();
}

/** The page's answer about PGlite's module (see ./early-worker.ts), as the boot wants it. */
export type PageWasm = { module: WebAssembly.Module; at: number } | { reason: string; at: number };

/**
 * The module the page compiled, with when it was ready on this worker's clock; if the page could
 * not compile it, the worker compiles it itself, saying why on the console.
 */
async function fromPage(page: Promise<PageWasm>, url: URL): Promise<Loaded<WebAssembly.Module>> {
  const answer = await page;
  if ('module' in answer && answer.module instanceof WebAssembly.Module) {
    return { value: answer.module, ms: Math.max(0, answer.at - performance.timeOrigin), by: 'page' };
  }
  const why = 'reason' in answer ? answer.reason : 'it sent something that is not a module';
  console.warn(`The page could not compile PostgreSQL's WebAssembly for the database worker (${why}); the worker compiles it itself.`);
  return settle(() => compileWasm(url));
}

/**
 * Start all three downloads now. With `pageWasm`, the page's HTML is compiling the WebAssembly
 * module and will post it: the worker waits for it instead of downloading it too.
 */
export function startBootAssets(urls: BootAssetUrls, pageWasm?: Promise<PageWasm>): BootAssets {
  return {
    wasmModule: pageWasm ? fromPage(pageWasm, urls.wasm) : settle(() => compileWasm(urls.wasm)),
    fsBundle: settle(() => blob(urls.fsBundle)),
    dataDir: settle(() => blob(urls.dataDir)),
  };
}
