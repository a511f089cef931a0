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

/** The bound of a wait for a state: 90 s, three times what a loaded machine was seen to need. */
export const E2E_WAIT_MS = 90_000;

/** Where a kept page's storage is cleared: every kind a page of the site can write. */
const STORAGE_TYPES = 'cookies,file_systems,indexeddb,local_storage,websql,service_workers,cache_storage';

/**
 * Pages kept between the tests of a file, each in a context of its own, per browser: one for each
 * kind of device (a phone's touch and mobile viewport are the context's), script setting and
 * database workers setting. Colour scheme and viewport are set on the page for each test.
 */
const kept = new WeakMap();

async function newContext(browser, { javaScriptEnabled, device, exploreWorkers, colorScheme, viewport }) {
  const context = await browser.newContext({ colorScheme, javaScriptEnabled, viewport, deviceScaleFactor: 1, ...device });
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
  return context;
}

/**
 * A page in `colorScheme` at `device`'s viewport (1280 × 900 unless given; e.g. `PHONE`), recording
 * every request URL (the page's and its workers') and every console error and page error.
 * `exploreWorkers` is the page's database workers setting ('1' unless given; null: the page's own
 * default). Returns `{ context, page, requests, errors, close }`; `close()` ends the test's use.
 *
 * The tab is kept from test to test of a file: a fresh context and tab per test made every test
 * pay for a cold renderer (PGlite's WebAssembly compiled again, Monaco's scripts parsed again:
 * about 2.5 s more to a lab's Run and 6 s more to Monaco on this machine). Each test still starts
 * as a learner who never came: the tab is on about:blank; the origin's storage is cleared (local
 * storage, IndexedDB, cache storage, cookies; session storage as the last test leaves the site);
 * the viewport and media are set anew; the mouse is off the page. What a test adds to its page
 * (page.addInitScript, page.route) and the permissions it grants are taken back by `close()`; a
 * test must not change the context otherwise, nor add page listeners of its own. A second page
 * opened while the kept one is in use (two devices at once) gets a context of its own.
 * `fresh: true` gives a context and tab of the test's own, closed by `close()`: for a test of the
 * first visit itself (downloads, headers), or one that changes the context.
 */
export async function openPage(browser, { colorScheme = 'light', javaScriptEnabled = true, device = {}, exploreWorkers = '1', fresh = false } = {}) {
  const viewport = device.viewport ?? { width: 1280, height: 900 };
  const options = { javaScriptEnabled, device, exploreWorkers, colorScheme, viewport };
  const key = JSON.stringify([javaScriptEnabled, !!device.isMobile, !!device.hasTouch, exploreWorkers]);
  const byKey = kept.get(browser) ?? new Map();
  kept.set(browser, byKey);
  let entry = byKey.get(key);
  if (fresh || entry?.inUse) {
    // The test's own context, or a second device while the kept one is in use.
    const context = await newContext(browser, options);
    entry = { context, page: await context.newPage(), own: true };
  } else {
    if (!entry || entry.closed) {
      const context = await newContext(browser, options);
      entry = { context, page: null, closed: false, inUse: false, initScripts: [] };
      const made = entry;
      context.on('close', () => (made.closed = true));
      byKey.set(key, entry);
    }
    if (!entry.page || entry.page.isClosed()) {
      entry.page = await entry.context.newPage();
      entry.cdp = await entry.context.newCDPSession(entry.page);
      // What the test adds to the page before its scripts is taken back by close().
      const { page, initScripts } = entry;
      const addInitScript = page.addInitScript.bind(page);
      page.addInitScript = async (...args) => {
        const added = await addInitScript(...args);
        initScripts.push(added);
        return added;
      };
    }
    if (entry.page.url() !== 'about:blank') await entry.page.goto('about:blank');
    // A new learner: nothing the last test stored is left for this one.
    const origin = new URL(baseUrl()).origin;
    await entry.context.clearCookies();
    await entry.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: STORAGE_TYPES });
    await entry.page.setViewportSize(viewport);
    await entry.page.emulateMedia({ colorScheme, reducedMotion: null, media: null, forcedColors: null, contrast: null });
  }
  entry.inUse = true;
  const { context, page } = entry;
  const requests = [];
  const errors = [];
  const onRequest = (request) => requests.push(request.url());
  const onPageError = (error) => errors.push(`pageerror: ${error.message}`);
  const onResponse = (response) => {
    if (response.status() >= 400) errors.push(`HTTP ${response.status()}: ${response.url()}`);
  };
  const onConsole = (message) => {
    // The resource's address is in the location, not the text ("Failed to load resource: …"):
    // a failure names what failed.
    if (message.type() !== 'error') return;
    const where = message.location()?.url;
    errors.push(`console: ${message.text()}${where ? ` (${where})` : ''}`);
  };
  context.on('request', onRequest);
  page.on('pageerror', onPageError);
  page.on('response', onResponse);
  page.on('console', onConsole);
  const close = async () => {
    context.off('request', onRequest);
    if (entry.own || entry.closed) return context.close();
    page.off('pageerror', onPageError);
    page.off('response', onResponse);
    page.off('console', onConsole);
    if (page.isClosed()) {
      entry.inUse = false;
      return;
    }
    // Kept for the next test: its other pages (popups) closed, what it added to the page and the
    // grants taken back, the mouse moved off the page, and the document (with its workers) ended.
    for (const other of context.pages()) if (other !== page) await other.close();
    for (const added of entry.initScripts.splice(0)) await added.dispose();
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await context.clearPermissions();
    await page.mouse.move(-1, -1);
    // Session storage is the tab's: cleared from the site's document, which about:blank then ends.
    if (page.url().startsWith(new URL(baseUrl()).origin)) await page.evaluate(() => sessionStorage.clear()).catch(() => {});
    await page.goto('about:blank');
    entry.inUse = false;
  };
  return { context, page, requests, errors, close };
}

/** Resolves after the page has drawn two more frames (whatever a change scheduled for the next frame is on screen). */
export function nextFrames(page) {
  return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

/**
 * Switch `page` to `colorScheme` as the system's setting would, and wait until the page has
 * followed it: the media query matches, every Monaco editor wears the theme of that scheme (the
 * app sets it from the same query), and no colour is still in transition. A test that checks one
 * state in light and dark switches with this instead of loading the page again: the app's colours
 * are CSS media queries and Monaco's theme, which follows the query's change event.
 */
export async function setColorScheme(page, colorScheme) {
  await page.emulateMedia({ colorScheme });
  await page.waitForFunction(
    (dark) => {
      if (window.matchMedia('(prefers-color-scheme: dark)').matches !== dark) return false;
      if ([...document.querySelectorAll('.monaco-editor')].some((el) => el.classList.contains('vs-dark') !== dark)) return false;
      // A computed style read brings styles up to date, so a transition the switch starts is there to see.
      return getComputedStyle(document.body).color !== '' && document.getAnimations().every((a) => !(a instanceof CSSTransition));
    },
    colorScheme === 'dark',
    { polling: 'raf', timeout: E2E_WAIT_MS },
  );
  await nextFrames(page);
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
