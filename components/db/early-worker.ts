/**
 * The database worker, started by the page's HTML rather than by its JavaScript.
 *
 * PGlite's boot is the long pole of a cold lab, and the worker that runs it would otherwise be created only
 * once React and Next had loaded and evaluated (~0.6 s into a cold load here). The build
 * (scripts/early-worker.ts) therefore puts a small inline script at the top of every page that
 * loads the database: it creates the very worker the page's code would create (same bootstrap
 * URL, same chunks) and keeps whatever the worker says until the page's code adopts it
 * (`takeEarlyWorker`, called by ./worker-client.ts). A page without that script (the dev server, an
 * older build) simply creates its worker itself, as before.
 *
 * This module imports nothing: the build script and the page's first chunk both use it.
 */

/** Where the inline script leaves the worker for the page's code. */
export const EARLY_WORKER_KEY = '__effectivelyOnceEarlyDbWorker';

/**
 * The worker's name ends with this when the page's HTML compiles PGlite's WebAssembly for it: the
 * worker then waits for the module (an `EarlyWasmMessage`) instead of compiling it a second time.
 * The worker learns it from its name because its first script must decide before any message
 * can reach it.
 */
export const WASM_FROM_PAGE_SUFFIX = ' (wasm from page)';

/** The one message the inline script sends the worker: the compiled module, or why there is none. */
export type EarlyWasmMessage =
  | { type: 'early-wasm'; module: WebAssembly.Module; /** When it was compiled, in ms since the epoch. */ at: number }
  | { type: 'early-wasm'; reason: string; at: number };

/** Whether a message the worker got is the inline script's `EarlyWasmMessage`. */
export function isEarlyWasm(data: unknown): data is EarlyWasmMessage {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === 'early-wasm';
}

/** What the inline script leaves behind. */
export interface EarlyWorker {
  worker: Worker;
  /** When the script created it, in ms since navigation start (the page's performance.now()). */
  createdMs: number;
  /** Events that arrived before the page's code took the worker over, in order. */
  backlog: Event[];
  /** Stop collecting events into `backlog`. */
  release(): void;
}

/**
 * The inline script for a page: creates the worker at `url` (Turbopack's worker bootstrap with its
 * chunk list, as `scripts/early-worker.ts` found it in the build) and collects its events. Any
 * failure (no Worker support, a refused URL) leaves nothing behind, so the page starts its own.
 *
 * `prefetch` lists the scripts the worker loads next (PGlite and the engine). A classic worker
 * loads them with synchronous `importScripts`, one after another, its thread blocked on each
 * round trip while the WebAssembly it is downloading waits to be compiled; fetched now, in
 * parallel, by the page, they are in the HTTP cache (the build's chunks are immutable) when the
 * worker asks for them.
 *
 * `wasm` is PGlite's WebAssembly module. The page compiles it, as it streams in, and posts the
 * module to the worker: the worker's own streaming compile could only be fed between those
 * synchronous script loads, so it finished half a second after the scripts. Whatever goes wrong
 * (no streaming compile, an HTTP error, a module that cannot be posted) is posted as the reason,
 * and the worker compiles the module itself.
 */
export function earlyWorkerScript(url: string, prefetch: readonly string[] = [], name = 'pglite', wasm?: string): string {
  // JSON.stringify makes the strings safe JavaScript literals; `<` is escaped as well so that no
  // `</script>` can ever close the inline script early.
  const literal = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
  return (
    '(function(){try{' +
    `var w=new Worker(${literal(url)},{name:${literal(wasm ? name + WASM_FROM_PAGE_SUFFIX : name)}}),b=[],t=["message","messageerror","error"],p=${literal(prefetch)},i;` +
    'function k(e){b.push(e)}' +
    'for(i=0;i<t.length;i++)w.addEventListener(t[i],k);' +
    `window[${literal(EARLY_WORKER_KEY)}]={worker:w,createdMs:performance.now(),backlog:b,release:function(){for(var j=0;j<t.length;j++)w.removeEventListener(t[j],k)}};` +
    'for(i=0;i<p.length;i++)fetch(p[i]).then(function(r){return r.blob()}).catch(function(){});' +
    (wasm ? compileForWorker(literal(wasm)) : '') +
    '}catch(e){}})();'
  );
}

/**
 * The inline script's part that compiles `wasm` (a JavaScript string literal) and posts the result
 * to the worker `w`. Every path posts exactly one message, so a worker told by its name to wait
 * for the module is never left waiting.
 */
function compileForWorker(wasm: string): string {
  return (
    'var a=' + wasm + ',W=WebAssembly,o=function(){return (performance.timeOrigin||0)+performance.now()},' +
    'n=function(e){w.postMessage({type:"early-wasm",reason:String(e&&e.message||e),at:o()})},' +
    's=function(m){try{w.postMessage({type:"early-wasm",module:m,at:o()})}catch(e){n(e)}};' +
    'try{fetch(a).then(function(r){if(!r.ok)throw new Error(a+": HTTP "+r.status);' +
    'return typeof W.compileStreaming=="function"&&(r.headers.get("Content-Type")||"").indexOf("application/wasm")==0' +
    '?W.compileStreaming(r):r.arrayBuffer().then(function(x){return W.compile(x)})}).then(s,n)}catch(e){n(e)}'
  );
}

/** The worker the page's HTML started, handed over once (later calls get null), or null if there is none. */
export function takeEarlyWorker(): EarlyWorker | null {
  if (typeof window === 'undefined') return null;
  const holder = window as unknown as Record<string, EarlyWorker | undefined>;
  const early = holder[EARLY_WORKER_KEY];
  if (!early) return null;
  delete holder[EARLY_WORKER_KEY];
  const usable = typeof early === 'object' && early.worker && Array.isArray(early.backlog) && typeof early.release === 'function';
  return usable ? early : null;
}
