#!/usr/bin/env node
/**
 * End-to-end tests against the built static site (run `npm run build` first).
 * Serves out/ on a free loopback port, then runs tests/e2e/*.e2e.mjs with node's test runner in
 * real Chromium (Debian's /usr/bin/chromium, driven by playwright-core). Exits with the test
 * runner's code. Screenshots land in tests/artifacts/e2e/.
 * Arguments pick files by part of their name: `npm run test:e2e -- lab`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';
import { CHROMIUM } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const out = path.join(root, 'out');

if (!existsSync(CHROMIUM)) {
  console.error(
    `e2e: Chromium is missing at ${CHROMIUM}. Install Debian's package (apt-get install -y chromium); ` +
      'never `npx playwright install`.',
  );
  process.exit(1);
}
if (!existsSync(path.join(out, 'index.html'))) {
  console.error('e2e: out/index.html is missing. Run `npm run build` first (static export to out/).');
  process.exit(1);
}

// `npm run test:e2e -- lab` runs only the files whose names contain "lab".
const only = process.argv.slice(2);
const files = (await readdir(here))
  .filter((f) => f.endsWith('.e2e.mjs'))
  .filter((f) => only.length === 0 || only.some((word) => f.includes(word)))
  .sort()
  .map((f) => path.join(here, f));
if (files.length === 0) {
  console.error(`e2e: no tests/e2e/*.e2e.mjs files found${only.length ? ` matching ${only.join(', ')}` : ''}.`);
  process.exit(1);
}

const concurrency = Math.min(availableParallelism(), Math.max(1, Number(process.env.E2E_CONCURRENCY ?? 1) || 1));
const server = await startServer({ dir: out, port: 0, host: '127.0.0.1' });
console.log(`e2e: serving out/ at ${server.url} to ${files.length} test files, ${concurrency} at a time`);

const child = spawn(
  process.execPath,
  // tsx lets the tests import the scenario catalog (TypeScript) as the app does.
  // One file at a time unless E2E_CONCURRENCY says more: on two cores two at a time saved 33 s of
  // 950 (the browsers, PGlite and the course-package build keep both cores busy) for twice the load
  // on every wait, so more is for machines with more cores.
  ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files],
  { stdio: 'inherit', env: { ...process.env, E2E_BASE_URL: server.url } },
);

const stopChild = (signal) => child.kill(signal);
process.on('SIGINT', stopChild);
process.on('SIGTERM', stopChild);

const code = await new Promise((resolve) => {
  child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0)));
  child.on('error', (error) => {
    console.error(`e2e: could not start the test runner: ${error.message}`);
    resolve(1);
  });
});
await server.close();
process.exit(code);
