/** Shared set-up for the e2e tests: Chromium, the served site, request logs and screenshots. */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = path.join(root, 'tests/artifacts/e2e');
const AXE = path.join(root, 'node_modules/axe-core/axe.min.js');

/** A phone for `openPage`'s `device`: touch only, no fine pointer. */
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** The page's serious or critical axe-core violations (id, impact, help, up to three nodes each). */
export async function axeSerious(page) {
  // Evaluated, not added as a <script>: the page's CSP refuses inline scripts it has no hash for.
  await page.evaluate(await readFile(AXE, 'utf8'));
  const results = await page.evaluate(async () => {
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
  });
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The served site, e.g. http://127.0.0.1:41234/ (set by tests/e2e/run.mjs). */
export function baseUrl() {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error('E2E_BASE_URL is not set: run the e2e tests through `npm run test:e2e`.');
  return url;
}

export function urlOf(pathname) {
  return new URL(pathname, baseUrl()).href;
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A fresh context and page in `colorScheme`, recording every request URL (the page's and its
 * workers') and every console error and page error. `device` overrides the 1280 × 900 desktop
 * (e.g. `PHONE`); `exploreWorkers` is the page's database workers setting ('1' unless given).
 */
/** The bound of a wait for a state: 90 s, three times what a loaded machine was seen to need. */
export const E2E_WAIT_MS = 90_000;

export async function openPage(browser, { colorScheme = 'light', javaScriptEnabled = true, device = {}, exploreWorkers = '1' } = {}) {
  const context = await browser.newContext({
    colorScheme,
    javaScriptEnabled,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    ...device,
  });
  // One database worker per page unless a test asks for more (tests/e2e/explore-pool.e2e.mjs
  // tests the pool): each helper boots another PGlite and warms it up, on the same cores as the
  // test's own steps. Set before the page's scripts, and only where nothing set it yet, so a
  // test's own init script, or a reload, keeps what the test chose. `exploreWorkers: null` leaves
  // the page its default (one worker per core).
  if (exploreWorkers !== null) {
    await context.addInitScript((workers) => {
      try {
        if (localStorage.getItem('effectively-once.explore-workers') === null) localStorage.setItem('effectively-once.explore-workers', workers);
      } catch {
        /* a page without storage (about:blank, a sandboxed frame) keeps its default */
      }
    }, exploreWorkers);
  }
  // Every wait without its own bound (waitFor, waitForFunction, clicks) is sized for a loaded
  // machine three times slower than a quiet one: a state, not a time, ends it.
  context.setDefaultTimeout(E2E_WAIT_MS);
  const requests = [];
  const errors = [];
  context.on('request', (request) => requests.push(request.url()));
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  page.on('console', (message) => {
    // The resource's address is in the location, not the text ("Failed to load resource: …"):
    // a failure names what failed.
    if (message.type() !== 'error') return;
    const where = message.location()?.url;
    errors.push(`console: ${message.text()}${where ? ` (${where})` : ''}`);
  });
  return { context, page, requests, errors };
}

/** `tests/artifacts/e2e/<name>.png`: the whole page, or with `fullPage: false` what the screen shows (where the point is what fits). */
export async function screenshot(page, name, { fullPage = true } = {}) {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

/** What the screen shows, as `screenshot` with `fullPage: false`. */
export function screenShot(page, name) {
  return screenshot(page, name, { fullPage: false });
}

/** Wait until the in-browser PostgreSQL reports ready (or fail with what it reported). */
/**
 * Load `url` as a new document, as if pasted into a fresh tab. A `goto` to the page already shown
 * with only another #fragment is an in-page hash change, and Next's router, when it has not yet
 * finished hydrating, writes back the address it started with (fragment gone): a reload after it
 * then loads the page without the link. Seen in CI as a share offer that never came.
 */
export async function loadFresh(page, url) {
  await page.goto('about:blank');
  await page.goto(url);
}

export async function waitForDbReady(page, timeout = E2E_WAIT_MS) {
  const status = page.getByTestId('db-status');
  await page
    .locator('[data-testid="db-status"]:is([data-status="ready"], [data-status="error"])')
    .waitFor({ timeout });
  const state = await status.getAttribute('data-status');
  if (state !== 'ready') {
    throw new Error(`PGlite failed to boot: ${await status.innerText()}`);
  }
}

/** Wait until the lab's Run button is enabled (the database is booted and the code loaded); `target` is a page or a frame. */
export async function waitRunnable(target, timeout = 2 * E2E_WAIT_MS) {
  await target.waitForFunction(() => {
    const b = document.querySelector('[data-action="run"]');
    return b && !b.disabled;
  }, undefined, { timeout });
}

/** Wait until the Verdict live region matches `pattern`; returns its text. */
export async function waitVerdict(page, pattern, timeout = E2E_WAIT_MS) {
  await page.waitForFunction(
    (source) => new RegExp(source).test(document.querySelector('[aria-label="Verdict"]')?.textContent ?? ''),
    pattern.source,
    { timeout },
  );
  return page.getByRole('status', { name: 'Verdict' }).innerText();
}
