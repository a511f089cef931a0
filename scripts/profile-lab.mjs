#!/usr/bin/env node
/**
 * `npm run profile:lab`: where the tab's Explore time goes. Against the static build in out/, in
 * Debian's Chromium, for each lesson and variant a fresh page explores twice (the page's first and
 * second exploration) while Chromium's CPU profiler samples the database worker (the DevTools
 * protocol's `Profiler` domain on the worker's target). Prints, per exploration, the worker's time
 * by kind of work, and writes each profile to .profile/ (open one in Chrome DevTools' Performance
 * panel, or `npx speedscope`).
 *
 * Kinds are told apart by the file each sampled function comes from: with source maps beside the
 * scripts (`EO_SOURCE_MAPS=1 npm run build`) every frame is named by its source file; without
 * them only WebAssembly, the learner's code (its `sourceURL`), the garbage collector and idle time
 * can be told apart, and the rest is "worker script (build without source maps)".
 *
 *   EO_SOURCE_MAPS=1 npm run build && npm run profile:lab
 *   PROFILE_LESSONS=dual-write PROFILE_VARIANTS=solution npm run profile:lab
 *   PROFILE_OUT=path/to/export PROFILE_INTERVAL_US=250 npm run profile:lab
 *   node scripts/profile-lab.mjs --analyse .profile/dual-write-solution-first.cpuprofile   # again, no browser
 *
 * A profile costs the worker some speed (a sample every PROFILE_INTERVAL_US, default 250 µs): the
 * shares matter here, not the times; `npm run bench:lab` times explorations without a profiler.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { startServer } from './serve.mjs';
import { chooseVariant, EXPLORE_LESSONS, exploreOnce, launchChromium, openLab, workerSession } from './lab-explore.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(process.env.PROFILE_OUT ?? path.join(root, 'out'));
const lessons = (process.env.PROFILE_LESSONS ?? EXPLORE_LESSONS.join(',')).split(',');
const variants = (process.env.PROFILE_VARIANTS ?? 'starter,solution').split(',');
const intervalUs = Number(process.env.PROFILE_INTERVAL_US ?? 250);
const saveDir = path.join(root, '.profile');

if (!existsSync(path.join(out, 'lab', lessons[0], 'index.html'))) {
  console.error(`profile:lab: ${out} has no lab; build first (EO_SOURCE_MAPS=1 npm run build)`);
  process.exit(1);
}

/** Kinds of work, by the source file a frame comes from (first match wins). */
const KINDS = [
  ['learner code', (src) => src === 'learner.ts'],
  ['PGlite (WebAssembly)', (src, frame) => frame.url.endsWith('.wasm') || /^(wasm-to-js|js-to-wasm)/.test(frame.functionName)],
  ['PGlite (its JavaScript)', (src) => src.includes('node_modules/@electric-sql/pglite')],
  ['statements and protocol (simulations/db)', (src) => src.includes('simulations/db/')],
  ['sandbox guards (components/db/sandbox.ts)', (src) => src.includes('components/db/sandbox')],
  ['worker and messages to the page (components/db)', (src, frame) => src.includes('components/db/') || ['postMessage', 'MessageChannel', 'structuredClone'].includes(frame.functionName)],
  ['learner realm: compile, evaluate (simulations/learner)', (src) => src.includes('simulations/learner/')],
  ['transpiling (sucrase)', (src) => src.includes('node_modules/sucrase')],
  ['XState (actors)', (src) => src.includes('node_modules/xstate')],
  ['hashing (@noble/hashes)', (src) => src.includes('node_modules/@noble/hashes')],
  ['engine: scheduler, env, queue, faults, trace (simulations/engine)', (src) => src.includes('simulations/engine/')],
  ['runs, explore, checkers (simulations/run, lessons)', (src) => src.includes('simulations/run/') || src.includes('simulations/lessons/')],
  ['providers (simulations/providers)', (src) => src.includes('simulations/providers/')],
  ["the lesson's code (lib/)", (src) => /(^|\/)lib\//.test(src) && !src.includes('node_modules')],
  ['garbage collector', (src, frame) => frame.functionName === '(garbage collector)'],
  ['idle (waiting for a task)', (src, frame) => frame.functionName === '(idle)'],
  ['V8 itself (program)', (src, frame) => frame.functionName === '(program)' || frame.functionName === '(root)'],
  ['other libraries', (src) => src.includes('node_modules/')],
];
const UNMAPPED = 'worker script (build without source maps)';

/**
 * Work counted inclusively (a sample counts once if any frame of its stack matches): the per-run
 * set-up the issue names, each as the functions that do it.
 */
const SETUP = [
  ['module evaluation and compile (simulations/learner/compile.ts)', (o) => o.source.includes('simulations/learner/compile')],
  ['transpiling (sucrase)', (o) => o.source.includes('node_modules/sucrase')],
  ['actor creation (XState createActor)', (o) => o.source.includes('node_modules/xstate') && /^(createActor|Actor)$/.test(o.name)],
  ['database reset between runs (PgliteSimDatabase.reset)', (o) => o.source.includes('simulations/db/pglite.ts') && o.name === 'reset'],
  ["building the lesson's world (scenario.build)", (o) => o.source.includes('simulations/lessons/') && o.name === 'build'],
  ['checking invariants', (o) => o.source.includes('simulations/lessons/') && o.name === 'check'],
  ['snapshots and traces (simulations/run)', (o) => /simulations\/run\/(snapshot|lab-run|trace)/.test(o.source)],
  ['host turns (hostTick)', (o) => o.name === 'hostTick' || o.name === 'afterHostTick'],
];

/** Source maps of the served scripts, read from out/ beside each script. */
const maps = new Map();
async function mapFor(url) {
  if (maps.has(url)) return maps.get(url);
  let map = null;
  try {
    const file = path.join(out, decodeURIComponent(new URL(url).pathname));
    // The map the script names (Turbopack's map names need not match the script's).
    const named = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(await readFile(file, 'utf8'))?.[1];
    const mapFile = named && !named.startsWith('data:') ? path.resolve(path.dirname(file), named) : null;
    if (mapFile && existsSync(mapFile)) map = new TraceMap(await readFile(mapFile, 'utf8'));
  } catch {
    map = null;
  }
  maps.set(url, map);
  return map;
}

/** Where a profile node's function comes from: `{ source, name }` (source '' when unknown). */
async function origin(frame) {
  if (frame.url.endsWith('learner.ts')) return { source: 'learner.ts', name: frame.functionName, mapped: true };
  const map = frame.url ? await mapFor(frame.url) : null;
  if (!map) return { source: '', name: frame.functionName, mapped: false };
  const pos = originalPositionFor(map, { line: frame.lineNumber + 1, column: Math.max(0, frame.columnNumber) });
  return { source: (pos.source ?? '').replace(/^.*?\/(node_modules|simulations|components|lib|app)\//, '$1/'), name: pos.name ?? frame.functionName, mapped: !!pos.source };
}

/** The profile's samples summed by kind (self time) and by set-up work (inclusive), in ms. */
async function breakdown(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const info = new Map();
  for (const n of profile.nodes) {
    const o = await origin(n.callFrame);
    const kind = KINDS.find(([, test]) => test(o.source, n.callFrame))?.[0] ?? (o.mapped || !n.callFrame.url ? 'other' : UNMAPPED);
    info.set(n.id, { ...o, kind });
  }
  const selfMs = new Map();
  const setupMs = new Map();
  const fnMs = new Map();
  let totalMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
    const id = profile.samples[i];
    const me = info.get(id);
    totalMs += ms;
    selfMs.set(me.kind, (selfMs.get(me.kind) ?? 0) + ms);
    const fn = `${me.name || '(anonymous)'} · ${me.source || byId.get(id).callFrame.url.split('/').pop() || '-'}`;
    fnMs.set(fn, (fnMs.get(fn) ?? 0) + ms);
    const hit = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const o = info.get(at);
      for (const [name, test] of SETUP) if (!hit.has(name) && test(o)) hit.add(name);
    }
    for (const name of hit) setupMs.set(name, (setupMs.get(name) ?? 0) + ms);
  }
  return { totalMs, selfMs, setupMs, fnMs };
}

const pct = (part, whole) => `${((100 * part) / whole).toFixed(1).padStart(5)} %`;
const ms = (v) => `${v.toFixed(0).padStart(6)} ms`;

/** Print one exploration's breakdown under `title`; returns the worker's time not idle, in ms. */
function report(b, title) {
  const active = b.totalMs - (b.selfMs.get('idle (waiting for a task)') ?? 0);
  console.log('');
  console.log(title);
  console.log(`  worker profile: ${ms(b.totalMs)} sampled, ${ms(active)} not idle`);
  for (const [kind, t] of [...b.selfMs].sort((x, y) => y[1] - x[1]).filter(([k]) => !k.startsWith('idle'))) console.log(`    ${ms(t)} ${pct(t, active)}  ${kind}`);
  console.log('  per-run set-up and other work, inclusive (a sample counts for every item on its stack):');
  for (const [item] of SETUP) console.log(`    ${ms(b.setupMs.get(item) ?? 0)} ${pct(b.setupMs.get(item) ?? 0, active)}  ${item}`);
  console.log('  top functions (self):');
  for (const [fn, t] of [...b.fnMs].sort((x, y) => y[1] - x[1]).slice(0, 15)) console.log(`    ${ms(t)} ${pct(t, active)}  ${fn.slice(0, 110)}`);
  return active;
}

// `node scripts/profile-lab.mjs --analyse a.cpuprofile …`: the breakdown of saved profiles, no browser.
if (process.argv[2] === '--analyse') {
  for (const file of process.argv.slice(3)) report(await breakdown(JSON.parse(await readFile(file, 'utf8'))), file);
  process.exit(0);
}

await mkdir(saveDir, { recursive: true });
const server = await startServer({ dir: out, port: 0, host: '127.0.0.1' });
const browser = await launchChromium();
const summary = [];
console.log(`profile:lab: ${out}, sampling every ${intervalUs} µs; ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
try {
  for (const lesson of lessons) {
    for (const variant of variants) {
      const { context, page } = await openLab(browser, server.url, lesson);
      try {
        await chooseVariant(page, variant);
        const worker = await workerSession(page);
        await worker.send('Profiler.enable');
        await worker.send('Profiler.setSamplingInterval', { interval: intervalUs });
        for (const nth of ['first', 'second']) {
          await worker.send('Profiler.start');
          const explored = await exploreOnce(page);
          const { profile } = await worker.send('Profiler.stop');
          const name = `${lesson}-${variant}-${nth}`;
          await writeFile(path.join(saveDir, `${name}.cpuprofile`), JSON.stringify(profile));
          const b = await breakdown(profile);
          const active = report(b, `${lesson} · ${variant} · ${nth} exploration on the page: ${explored.runs} schedules in ${explored.ms.toFixed(0)} ms at the page's boundary (profiled), ${explored.violations} violated, ${explored.shrinkRuns} shrink runs`);
          summary.push({ lesson, variant, nth, exploreMs: explored.ms, runs: explored.runs, violations: explored.violations, shrinkRuns: explored.shrinkRuns, profiledMs: b.totalMs, activeMs: active, self: Object.fromEntries(b.selfMs), setup: Object.fromEntries(b.setupMs) });
        }
        await worker.detach();
      } finally {
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
}
await writeFile(path.join(saveDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
console.log(`\nprofiles and summary.json written to ${path.relative(root, saveDir)}/`);
