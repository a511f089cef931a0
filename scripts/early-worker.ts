#!/usr/bin/env tsx
/**
 * Build step (run by `npm run build` after `next build`, before the gzip twins): start the database
 * worker from each page's HTML instead of from its JavaScript (components/db/early-worker.ts says
 * why). For every exported page whose first-load scripts include the database worker's factory,
 * it finds that factory in the chunk — Turbopack compiles `new Worker(new URL('./pglite.worker.ts',
 * import.meta.url), …)` into a call naming its worker bootstrap and the chunks the bootstrap loads —
 * rebuilds the URL Turbopack's runtime would hand to `new Worker`, and puts the inline script that
 * creates the worker right after the page's `<meta charset>`.
 *
 * Nothing breaks when Turbopack's output changes shape: no page gets the script (a warning says so)
 * and pages start the worker from their code as before. `tests/e2e/boot.e2e.mjs` checks that the
 * built lab adopts the HTML's worker, so such a change shows up in the tests.
 *
 *   npx tsx scripts/early-worker.ts [dir]     # default: out/
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EARLY_WORKER_KEY, earlyWorkerScript } from '../components/db/early-worker';
import { pageNeedsDatabase } from '../components/db/needs-database';

/** Text only the database worker's entry chunk contains (components/db/pglite.worker.ts). */
export const WORKER_MARKER = 'The database worker could not load';

/** `….f("static/chunks/turbopack-worker-<hash>.js",["static/chunks/a.js",…])`: a worker factory. */
const FACTORY = /\.f\("((?:[^"\\]|\\.)*turbopack-worker-[^"]*\.js)",(\[[^\]]*\])\)/g;

/** A worker factory found in a chunk: Turbopack's bootstrap script and the chunks it loads, as written in the chunk. */
export interface WorkerFactory {
  bootstrap: string;
  chunks: string[];
}

/** The worker factories in one chunk's text. */
export function workerFactories(chunkText: string): WorkerFactory[] {
  const found: WorkerFactory[] = [];
  for (const match of chunkText.matchAll(FACTORY)) {
    try {
      const chunks: unknown = JSON.parse(match[2]);
      if (Array.isArray(chunks) && chunks.every((c) => typeof c === 'string')) found.push({ bootstrap: JSON.parse(`"${match[1]}"`), chunks });
    } catch {
      // Not the shape we know: skip it.
    }
  }
  return found;
}

/**
 * The URL Turbopack's runtime builds for a worker (Next 16.4's `turbopack-worker` bootstrap reads
 * its configuration from `#params=`): the chunks prefixed with the asset base, in reverse (the
 * bootstrap loads them last to first), the asset suffix (none), the base, and two deployment
 * settings this static export does not use.
 */
export function workerUrl(factory: WorkerFactory, base: string): string {
  const params = [factory.chunks.map((c) => base + c).reverse(), '', base, null, null];
  return `${base}${factory.bootstrap}#params=${encodeURIComponent(JSON.stringify(params))}`;
}

/**
 * The scripts the worker's own chunks name (its entry's dynamic import of PGlite and the engine),
 * other than those its bootstrap loads first: what the page can fetch for it ahead of time.
 */
export function chunksNamedBy(factory: WorkerFactory, chunkTexts: readonly string[], base: string): string[] {
  const named = new Set<string>();
  for (const text of chunkTexts) {
    for (const match of text.matchAll(/"(static\/chunks\/[^"\\]+\.js)"/g)) {
      if (!factory.chunks.includes(match[1])) named.add(base + match[1]);
    }
  }
  return [...named];
}

/**
 * PGlite's WebAssembly module as the worker's chunks name it (`"/_next/static/media/pglite.<hash>.wasm"`),
 * or undefined when they name none (the worker then compiles it itself, as before).
 */
export function wasmNamedBy(chunkTexts: readonly string[]): string | undefined {
  for (const text of chunkTexts) {
    const match = /"((?:[^"\\\s]*\/)?static\/media\/pglite\.[^"\\/\s]+\.wasm)"/.exec(text);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * Where the database worker starts: its URL, the scripts the page should fetch for it and the
 * WebAssembly module the page compiles for it.
 */
export interface EarlyWorkerPlan {
  url: string;
  prefetch: string[];
  wasm?: string;
}

/** The page's HTML with the early-worker script right after its `<meta charset>` (or `<head>`). */
export function withEarlyWorker(html: string, plan: EarlyWorkerPlan): string {
  if (html.includes(EARLY_WORKER_KEY)) return html;
  const tag = `<script>${earlyWorkerScript(plan.url, plan.prefetch, undefined, plan.wasm)}</script>`;
  const anchor = /<meta charset="?[^>]*>/i.exec(html) ?? /<head\b[^>]*>/i.exec(html);
  if (!anchor) return html;
  const at = anchor.index + anchor[0].length;
  return html.slice(0, at) + tag + html.slice(at);
}

/** The address an exported page is served at: `lab/x/index.html` → `/lab/x/`, `404.html` → `/404.html`. */
export function urlPathOf(dir: string, file: string): string {
  const rel = path.relative(dir, file).split(path.sep).join('/');
  return `/${rel.endsWith('index.html') ? rel.slice(0, -'index.html'.length) : rel}`;
}

async function* htmlUnder(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* htmlUnder(full);
    else if (entry.isFile() && entry.name.endsWith('.html')) yield full;
  }
}

/**
 * Add the early-worker script to every page under `dir` that boots the database as it loads
 * (components/db/needs-database.ts) and loads the database worker's factory with its first scripts. Resolves with the pages changed and the worker's URL (null: none found).
 */
export async function injectEarlyWorker(dir: string): Promise<{ pages: number; plan: EarlyWorkerPlan | null }> {
  // Per script source: the database worker's plan when that script holds its factory, else null.
  const bySrc = new Map<string, EarlyWorkerPlan | null>();
  const read = async (src: string) => readFile(path.join(dir, decodeURIComponent(new URL(src, 'http://x').pathname)), 'utf8').catch(() => '');
  const planIn = async (src: string): Promise<EarlyWorkerPlan | null> => {
    const cached = bySrc.get(src);
    if (cached !== undefined) return cached;
    let plan: EarlyWorkerPlan | null = null;
    const at = src.indexOf('static/chunks/');
    if (at >= 0) {
      const base = src.slice(0, at);
      for (const factory of workerFactories(await read(src))) {
        const texts = await Promise.all(factory.chunks.map((c) => read(base + c)));
        if (texts.some((t) => t.includes(WORKER_MARKER))) {
          const wasm = wasmNamedBy(texts);
          plan = { url: workerUrl(factory, base), prefetch: chunksNamedBy(factory, texts, base), ...(wasm ? { wasm } : {}) };
          break;
        }
      }
    }
    bySrc.set(src, plan);
    return plan;
  };

  let pages = 0;
  let found: EarlyWorkerPlan | null = null;
  for await (const file of htmlUnder(dir)) {
    if (!pageNeedsDatabase(urlPathOf(dir, file))) continue;
    const html = await readFile(file, 'utf8');
    let plan: EarlyWorkerPlan | null = null;
    for (const match of html.matchAll(/<script\b[^>]*\ssrc="([^"]+)"[^>]*>/g)) {
      plan = await planIn(match[1]);
      if (plan) break;
    }
    if (!plan) continue;
    const next = withEarlyWorker(html, plan);
    if (next === html) continue;
    await writeFile(file, next);
    pages++;
    found = plan;
  }
  return { pages, plan: found };
}

const runDirectly = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (runDirectly) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const dir = path.resolve(process.argv[2] ?? path.join(root, 'out'));
  if (!(await stat(dir).catch(() => null))?.isDirectory()) {
    console.error(`early-worker: ${dir} does not exist. Run \`next build\` first.`);
    process.exit(1);
  }
  const { pages, plan } = await injectEarlyWorker(dir);
  if (pages === 0) {
    console.warn(
      "early-worker: no page's first scripts hold the database worker's factory in the shape this step knows (Turbopack's output changed?): pages will start the worker from their code, ~0.5 s later.",
    );
  } else {
    console.log(
      `early-worker: ${pages} pages start the database worker from their HTML (${plan?.url.split('#')[0]}) and fetch its next ${plan?.prefetch.length} scripts`,
    );
  }
}
