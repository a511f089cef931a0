#!/usr/bin/env node
/**
 * Figures for the lab page, against the static build in out/ (built first if missing), in
 * Debian's Chromium: N cold loads of /lab/receipt-redelivery/ (a fresh browser context each, so
 * no HTTP cache and no compiled WebAssembly carried over), timing navigation start → the Run
 * button enabled (PGlite booted in the worker, the lab's controller ready); and the first-load JS
 * of the page: the <script src> files in its HTML, gzipped (Monaco and PGlite load later, lazily,
 * and must not be among them). Prints figures only; asserts nothing.
 *
 *   npm run bench:lab            # N=5
 *   BENCH_RUNS=10 npm run bench:lab
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'out');
const LAB = '/lab/receipt-redelivery/';
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TARGET_READY_MS = 1500;
const TARGET_JS_KB = 150;

if (!existsSync(path.join(out, 'lab/receipt-redelivery/index.html'))) {
  console.log('bench:lab: out/ is missing the lab; building first (next build)…');
  const build = spawnSync('npx', ['next', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// First-load JS: the scripts the HTML itself asks for.
const html = await readFile(path.join(out, 'lab/receipt-redelivery/index.html'), 'utf8');
const scripts = [...new Set([...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]))];
let rawBytes = 0;
let gzipBytes = 0;
const heavy = [];
for (const src of scripts) {
  const file = path.join(out, decodeURIComponent(new URL(src, 'http://x').pathname));
  const body = await readFile(file);
  rawBytes += body.length;
  gzipBytes += gzipSync(body, { level: 9 }).length;
  const text = body.toString('utf8');
  if (/MonacoEnvironment|StandaloneCodeEditor|registerCompletionItemProvider/.test(text)) heavy.push(`${src} (Monaco)`);
  if (/PGlite\.create|pglite\.wasm|emscripten/i.test(text)) heavy.push(`${src} (PGlite)`);
}

const server = await startServer({ dir: out, port: 0, host: '127.0.0.1' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
});

const times = [];
const bootTimes = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(new URL(LAB, server.url).href, { waitUntil: 'commit' });
    await page.waitForFunction(
      () => {
        const b = document.querySelector('[data-action="run"]');
        return b && !b.disabled;
      },
      undefined,
      { timeout: 120_000, polling: 20 },
    );
    // performance.now() in the page counts from navigation start.
    const ms = await page.evaluate(() => performance.now());
    const boot = await page.getByTestId('db-status').getAttribute('data-boot-ms');
    times.push(ms);
    bootTimes.push(Number(boot));
    console.log(`  load ${i + 1}/${RUNS}: Run enabled after ${ms.toFixed(0)} ms (worker boot ${boot} ms)`);
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}

const sorted = [...times].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
console.log('');
console.log(`lab ready (navigation start → Run enabled), ${RUNS} cold loads of ${LAB}:`);
console.log(`  min ${sorted[0].toFixed(0)} ms · median ${median.toFixed(0)} ms · max ${sorted.at(-1).toFixed(0)} ms   (target ≤ ${TARGET_READY_MS} ms)`);
console.log(`first-load JS of ${LAB}: ${scripts.length} <script src> files, ${(rawBytes / 1024).toFixed(1)} KB raw, ${(gzipBytes / 1024).toFixed(1)} KB gzip   (target ≤ ${TARGET_JS_KB} KB gzip)`);
console.log(heavy.length ? `  includes heavy code: ${heavy.join(', ')}` : '  Monaco and PGlite are not among them (loaded lazily).');
