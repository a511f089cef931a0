#!/usr/bin/env node
/**
 * Figures for the lab page, against the static build in out/ (built first if missing), in
 * Debian's Chromium. Prints figures only; asserts nothing.
 *
 * - Cold: N loads of /lab/receipt-redelivery/, each in a fresh browser context (no HTTP cache, no
 *   cached compiled WebAssembly), timing navigation start → the Run button enabled (PGlite booted
 *   in the worker, the lab's controller ready), with where the time went: the page's own
 *   milestones and the worker's (placed on the page's clock).
 * - Warm: a second load in the same context (HTTP cache and code caches filled), once the first
 *   load's editor is up and 1.5 s have passed (a second visit does not start the instant the first
 *   became ready; timed right away, it competed with the first page's own late work).
 * - First-load JS: the scripts the page's HTML makes a module-capable browser run, gzipped (the
 *   `nomodule` polyfills only run in browsers without ES modules, and are listed apart). Monaco
 *   and PGlite load later, lazily, and must not be among them.
 *
 *   npm run bench:lab            # N=5
 *   BENCH_RUNS=10 npm run bench:lab
 *   BENCH_OUT=path/to/export npm run bench:lab   # another build of the site
 *   BENCH_WINDOW_UI=1 npm run bench:lab          # keep Chromium's own address-bar popup (see below)
 *   BENCH_EXPLORE=0 npm run bench:lab            # loads only, no Explore figures
 *
 * Every cold load opens a new browser context, and so a new Chromium window; Chromium 156 then
 * renders its address-bar popup (a WebUI page, `chrome://omnibox-popup.top-chrome`) in a renderer
 * of its own, ~1.2 s of CPU in the first seconds, on the same two cores as the lab's boot. A
 * learner opening the lab in a browser that is already running does not pay that, so it is turned
 * off here (`--disable-features=…`); before 2026-12-03 the figures included it (~570 ms of a
 * median cold load at load ≈ 2–4, measured by tracing).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { PGlite } from '@electric-sql/pglite';
import { FACTS_SELECT1_US, select1Micros } from './machine-speed.mjs';
import { startServer } from './serve.mjs';
import { chooseVariant, EXPLORE_LESSONS, exploreOnce, openLab, presenterExploreBoth, waitForWarmUp } from './lab-explore.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(process.env.BENCH_OUT ?? path.join(root, 'out'));
const LAB = '/lab/receipt-redelivery/';
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TARGET_READY_MS = 1500;
const TARGET_JS_KB = 150;
/** How long the first load is left alone, after its editor is up, before the warm load starts. */
const WARM_PAUSE_MS = 1500;

if (!existsSync(path.join(out, 'lab/receipt-redelivery/index.html'))) {
  console.log('bench:lab: out/ is missing the lab; building first (npm run build)…');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// ---- First-load JS: the scripts the HTML itself asks for.
const html = await readFile(path.join(out, 'lab/receipt-redelivery/index.html'), 'utf8');
const tags = [...html.matchAll(/<script\b[^>]*\ssrc="([^"]+)"[^>]*>/g)].map((m) => ({ src: m[1], nomodule: /\snomodule\b/i.test(m[0]) }));
const seen = new Set();
const files = [];
const heavy = [];
for (const { src, nomodule } of tags) {
  if (seen.has(src)) continue;
  seen.add(src);
  const body = await readFile(path.join(out, decodeURIComponent(new URL(src, 'http://x').pathname)));
  const text = body.toString('utf8');
  files.push({ src, nomodule, raw: body.length, gzip: gzipSync(body, { level: 9 }).length });
  if (/MonacoEnvironment|StandaloneCodeEditor|registerCompletionItemProvider/.test(text)) heavy.push(`${src} (Monaco)`);
  if (/PGlite\.create|pglite\.wasm|emscripten/i.test(text)) heavy.push(`${src} (PGlite)`);
}
const run = files.filter((f) => !f.nomodule);
const sum = (list, key) => list.reduce((n, f) => n + f[key], 0);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

// ---- How fast this machine is today (before any browser starts).
const calibration = await PGlite.create();
const select1Us = await select1Micros(calibration);
await calibration.close();

// ---- Cold and warm loads.
const server = await startServer({ dir: out, port: 0, host: '127.0.0.1' });
const WINDOW_UI = process.env.BENCH_WINDOW_UI === '1';
/** Chromium's address-bar popup, a WebUI renderer every new window starts (see the top of this file). */
const NO_WINDOW_UI = '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI';
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', ...(WINDOW_UI ? [] : [NO_WINDOW_UI])],
});

/** Navigation start → Run enabled, and the milestones on the way (all in ms since navigation start). */
async function load(page) {
  await page.goto(new URL(LAB, server.url).href, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__runEnabledAt !== undefined, undefined, { timeout: 120_000, polling: 20 });
  return page.evaluate(() => {
    const observed = performance.now();
    const ready = window.__runEnabledAt;
    const nav = performance.getEntriesByType('navigation')[0];
    const status = document.querySelector('[data-testid="db-status"]');
    const timings = JSON.parse(status?.getAttribute('data-boot-timings') ?? '{}');
    const workerStart = Number(status?.getAttribute('data-worker-start-ms'));
    const onPage = (t) => (Number.isFinite(t) && Number.isFinite(workerStart) ? workerStart + t : NaN);
    // The page's scripts (not the worker's) that had arrived when Run was enabled.
    const scripts = performance
      .getEntriesByType('resource')
      .filter((e) => e.responseEnd <= ready && /\.m?js$/.test(new URL(e.name).pathname))
      .map((e) => new URL(e.name).pathname);
    return {
      ready,
      scripts,
      prebuilt: status?.getAttribute('data-prebuilt'),
      earlyWorker: status?.getAttribute('data-worker-early'),
      wasmBy: timings.wasmCompiledBy ?? '?',
      milestones: {
        'HTML received': nav?.responseEnd,
        'DOMContentLoaded': nav?.domContentLoadedEventEnd,
        'worker created': Number(status?.getAttribute('data-worker-created-ms')),
        'worker entry ran': onPage(timings.entry),
        'PGlite + engine loaded': onPage(timings.scriptLoaded),
        'fs bundle fetched': onPage(timings.fsBundleLoaded),
        'data dir fetched': onPage(timings.dataDirLoaded),
        'wasm compiled': onPage(timings.wasmCompiled),
        'PGlite.create done': onPage(timings.pgliteCreated),
        'schema checked': onPage(timings.schemaInstalled),
        'first query answered': onPage(timings.firstQuery),
        'Run enabled': ready,
        'Run seen enabled (poll)': observed,
      },
    };
  });
}

/**
 * Runs in every page before its scripts: notes the moment React enables the Run button, from a
 * MutationObserver (a poll would add the delay of whatever task holds the main thread then; the
 * poll's own time is reported beside it).
 */
function watchRunButton() {
  const mark = () => {
    const b = document.querySelector('[data-action="run"]');
    if (b && !b.disabled && window.__runEnabledAt === undefined) window.__runEnabledAt = performance.now();
  };
  new MutationObserver(mark).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
}

/** Resident memory of the renderer processes this bench's Chromium runs (the page and its workers), in MB. */
function rendererRssMb() {
  const pid = process.pid;
  const children = new Map();
  const info = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1] ?? 0);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      info.set(Number(entry), { renderer: cmd.includes('--type=renderer'), rss });
    } catch {
      /* the process ended meanwhile */
    }
  }
  let kb = 0;
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      if (info.get(c)?.renderer) kb += info.get(c).rss;
      walk(c);
    }
  };
  walk(pid);
  return kb / 1024;
}

const cold = [];
const warm = [];
const EXPLORE = process.env.BENCH_EXPLORE !== '0';
/** Workers to compare (components/db/explore-pool.ts): each count's first Explore and memory. */
const POOL_SIZES = (process.env.BENCH_WORKERS ?? '1,2,3').split(',').map(Number).filter((n) => n >= 1 && n <= 3);
const pool = [];
/** `{ lesson, variant, first, second }` per lesson and variant (see exploreOnce). */
const explored = [];
/** `{ lesson, ms, boundaryMs, violations }`: presenter mode's "Explore both" per lesson (see presenterExploreBoth). */
const presented = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(watchRunButton);
    const page = await context.newPage();
    const c = await load(page);
    cold.push(c);
    // A learner's second visit does not start the instant the first became ready: let the first
    // finish what it does after Run is enabled (Monaco and its TypeScript worker load, V8 finishes
    // optimising PGlite's WebAssembly) and go quiet, so the warm load is not timed against it.
    await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(WARM_PAUSE_MS);
    const w = await load(page);
    warm.push(w);
    console.log(
      `  load ${i + 1}/${RUNS}: cold ${c.ready.toFixed(0)} ms (worker boot ${(c.milestones['first query answered'] - c.milestones['worker entry ran']).toFixed(0)} ms, prebuilt data dir: ${c.prebuilt}, worker started by the HTML: ${c.earlyWorker}, wasm compiled by the ${c.wasmBy}) · warm ${w.ready.toFixed(0)} ms`,
    );
    await context.close();
  }
  if (EXPLORE) {
    // One lesson's starter on 1, 2, 3 workers: the first exploration after the warm-ups, and the
    // renderer's memory then (the page and all its workers: each worker's PGlite is its own).
    for (const workers of POOL_SIZES) {
      const { context, page } = await openLab(browser, server.url, 'concurrent-redelivery', workers);
      try {
        await chooseVariant(page, 'solution');
        const warmUp = await waitForWarmUp(page);
        const first = await exploreOnce(page);
        const rssMb = rendererRssMb();
        pool.push({ workers, first, rssMb, warmUp });
        console.log(`  ${workers} worker(s): concurrent-redelivery · solution, first explore ${first.ms.toFixed(0)} ms, renderers ${rssMb.toFixed(0)} MB resident`);
      } finally {
        await context.close();
      }
    }
    for (const lesson of EXPLORE_LESSONS) {
      for (const variant of ['starter', 'solution']) {
        const { context, page } = await openLab(browser, server.url, lesson);
        try {
          await chooseVariant(page, variant);
          const warmUp = await waitForWarmUp(page);
          const first = await exploreOnce(page);
          const second = await exploreOnce(page);
          explored.push({ lesson, variant, first, second, warmUp });
          const warmText = warmUp ? `after ${warmUp.workers} worker(s) warmed up (${warmUp.runs} schedules, done ${(warmUp.doneMs / 1000).toFixed(1)} s after navigation)` : 'no warm-up seen';
          console.log(`  explore ${lesson} · ${variant}: first ${first.ms.toFixed(0)} ms · second ${second.ms.toFixed(0)} ms (${first.runs} schedules, ${first.violations} violated; ${warmText})`);
        } finally {
          await context.close();
        }
      }
    }
    for (const lesson of EXPLORE_LESSONS) {
      const both = await presenterExploreBoth(browser, server.url, lesson);
      presented.push({ lesson, ...both });
      console.log(`  presenter ${lesson}: Explore both ${both.ms.toFixed(0)} ms click → summary (${both.boundaryMs.toFixed(0)} ms at the workers' boundary; ${both.violations.join(' and ')} violated)`);
    }
  }
} finally {
  await browser.close();
  await server.close();
}

const median = (values) => {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};
const stats = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return `min ${s[0].toFixed(0)} ms · median ${median(s).toFixed(0)} ms · max ${s.at(-1).toFixed(0)} ms`;
};

console.log('');
console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (figures stretch with load)`);
console.log(`  PGlite's SELECT 1 in Node takes ${select1Us} µs here (FACTS.md: ~${FACTS_SELECT1_US} µs); the figures below stretch roughly with it`);
console.log(`lab ready (navigation start → Run enabled), ${LAB}:`);
console.log(
  WINDOW_UI
    ? "  (Chromium's address-bar popup renderer left on: each new window's own ~1.2 s of CPU is in these figures)"
    : "  (Chromium's address-bar popup renderer turned off: a new window's, not the lab's; BENCH_WINDOW_UI=1 keeps it)",
);
console.log(`  cold: ${stats(cold.map((c) => c.ready))}   (target ≤ ${TARGET_READY_MS} ms)`);
console.log(`  warm: ${stats(warm.map((w) => w.ready))}`);
console.log('  breakdown, median ms since navigation start:   cold    warm');
const cell = (m) => (Number.isFinite(m) ? m.toFixed(0).padStart(6) : '     –');
for (const name of Object.keys(cold[0].milestones)) {
  console.log(`    ${name.padEnd(40)} ${cell(median(cold.map((c) => c.milestones[name])))}  ${cell(median(warm.map((w) => w.milestones[name])))}`);
}
console.log(
  `first-load JS of ${LAB}: ${run.length} scripts, ${kb(sum(run, 'raw'))} raw, ${kb(sum(run, 'gzip'))} gzip   (target ≤ ${TARGET_JS_KB} KB gzip)`,
);
for (const f of [...run].sort((a, b) => b.gzip - a.gzip)) console.log(`    ${kb(f.gzip).padStart(9)} gzip  ${f.src}`);
const legacy = files.filter((f) => f.nomodule);
if (legacy.length) console.log(`  not counted: ${legacy.length} nomodule polyfill script(s), ${kb(sum(legacy, 'gzip'))} gzip, never run by module browsers`);
console.log(heavy.length ? `  includes heavy code: ${heavy.join(', ')}` : '  Monaco and PGlite are not among them (loaded lazily).');

// ---- Everything the page itself fetched as script before Run was enabled (first cold load): the
// first-load scripts plus the chunks loaded on demand (the lab's island, its lazy views, the
// worker's entry). The worker's own imports (PGlite, the engine) are in the worker, not here.
if (cold.length) {
  const firstLoad = new Set(run.map((f) => new URL(f.src, 'http://x').pathname));
  const later = [];
  for (const p of new Set(cold[0].scripts)) {
    if (firstLoad.has(p)) continue;
    const file = path.join(out, decodeURIComponent(p));
    if (!existsSync(file)) continue;
    const body = await readFile(file);
    later.push({ src: p, gzip: gzipSync(body, { level: 9 }).length });
  }
  console.log(`scripts the page fetched after its first load and before Run was enabled: ${later.length}, ${kb(sum(later, 'gzip'))} gzip`);
  for (const f of later.sort((a, b) => b.gzip - a.gzip)) console.log(`    ${kb(f.gzip).padStart(9)} gzip  ${f.src}`);
}

// ---- The pool: workers against speed and memory.
if (pool.length) {
  const base = pool.find((p) => p.workers === 1);
  console.log('Explore on 1–3 database workers (concurrent-redelivery · solution, a page\'s first exploration after the warm-ups), renderer memory resident:');
  for (const p of pool) {
    const vs = base && p !== base ? ` (${(base.first.ms / p.first.ms).toFixed(2)}× the speed, +${(p.rssMb - base.rssMb).toFixed(0)} MB against 1 worker)` : '';
    console.log(`  ${p.workers} worker(s): ${p.first.ms.toFixed(0).padStart(6)} ms   ${p.rssMb.toFixed(0).padStart(5)} MB${vs}`);
  }
}

// ---- Explore: the tab against Node, the same schedules.
if (explored.length) {
  const bundle = spawnSync('npx', ['esbuild', 'scripts/explore-figures.ts', '--bundle', '--platform=node', '--format=esm', '--packages=external', '--outdir=.bench', '--log-level=warning'], { cwd: root, stdio: 'inherit' });
  if (bundle.status !== 0) process.exit(bundle.status ?? 1);
  const node = [];
  for (const { lesson, variant } of explored) {
    const child = spawnSync('node', ['.bench/explore-figures.js', lesson, variant], { cwd: root, encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`explore-figures ${lesson} ${variant} failed: ${child.stderr}`);
    node.push(...JSON.parse(child.stdout.trim().split('\n').at(-1)));
  }
  const nodeMs = (lesson, variant, nth) => node.find((f) => f.lesson === lesson && f.variant === variant && f.nth === nth)?.ms ?? NaN;
  console.log(`Explore, 200 schedules: the tab (a fresh page, request → result) and Node (a fresh process, after boot), ms; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('  lesson                  variant    tab 1st  tab 2nd  node 1st node 2nd  tab/node 1st  2nd');
  const ratios = [];
  for (const { lesson, variant, first, second } of explored) {
    const n1 = nodeMs(lesson, variant, 'first');
    const n2 = nodeMs(lesson, variant, 'second');
    ratios.push(first.ms / n1, second.ms / n2);
    console.log(
      `  ${lesson.padEnd(23)} ${variant.padEnd(9)} ${first.ms.toFixed(0).padStart(8)} ${second.ms.toFixed(0).padStart(8)} ${n1.toFixed(0).padStart(8)} ${n2.toFixed(0).padStart(8)}  ${(first.ms / n1).toFixed(2).padStart(12)} ${(second.ms / n2).toFixed(2).padStart(4)}`,
    );
  }
  const firsts = explored.map((e) => e.first.ms);
  console.log(`  tab, a page's first exploration: median ${median(firsts).toFixed(0)} ms, ${Math.round(200_000 / median(firsts))} schedules/s   (target ≤ 500 ms)`);
  console.log(`  tab/Node: median ${median(ratios).toFixed(2)}   (target ≤ 1.5)`);
}

// ---- Presenter mode: "Explore both", starter and solution, 400 schedules.
if (presented.length) {
  console.log('Presenter mode, "Explore both" (the starter\'s and the solution\'s 200 schedules, a fresh page whose workers had warmed up), ms:');
  for (const p of presented) console.log(`  ${p.lesson.padEnd(23)} ${p.ms.toFixed(0).padStart(6)} click → summary on screen   ${p.boundaryMs.toFixed(0).padStart(6)} first request → last result`);
  console.log(`  median ${median(presented.map((p) => p.ms)).toFixed(0)} ms   (target ≤ 1000 ms)`);
}
