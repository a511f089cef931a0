/**
 * Exploring in the lab from a script, as a learner does it (the page's own Explore action), in
 * Debian's Chromium against the static build: shared by `npm run bench:lab` (times) and
 * `npm run profile:lab` (CPU profiles of the database worker).
 *
 * Times are taken at the page's boundary with its database worker: from the page posting the
 * `explore` request to the worker posting `explore-result` (an init script wraps `Worker` before
 * any of the page's scripts run), so they include everything the worker does for an exploration
 * (set-up, 200 schedules, shrinking a counterexample, progress messages) and nothing the page
 * renders afterwards. The worker's own figure (`elapsedMs`, from its first schedule to its last) is
 * read from the result beside it.
 */
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** The lessons issue #28 times. */
export const EXPLORE_LESSONS = ['receipt-redelivery', 'concurrent-redelivery', 'dual-write'];
/** Generous: a loaded 2-core machine took 10 s for one exploration; a slower one may take three times that. */
const WAIT_MS = 180_000;

/** Chromium's address-bar popup renderer costs each new window ~1 s of CPU; a learner's browser has paid it already. */
const NO_WINDOW_UI = '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI';

export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', NO_WINDOW_UI],
  });
}

/**
 * Runs in the page before its own scripts: notes when each exploration is asked for and answered.
 * After its 'ready' message the worker talks to the page on a MessagePort of its own, so both
 * directions are watched on `Worker` and on `MessagePort`.
 */
function watchExplorations() {
  const log = (window.__eoExplores = []);
  // Warm-ups (components/db/explore-pool.ts): database workers started, warm-ups answered.
  const warm = (window.__eoWarm = { workers: 0, answered: 0, runs: 0, lastAt: null });
  const onAnswer = (event) => {
    const data = event.data;
    if (data?.type === 'ready' && data.port) data.port.addEventListener('message', onAnswer);
    if (data?.type === 'warm-result') {
      warm.answered++;
      warm.runs += data.runs;
      warm.lastAt = performance.now();
    }
    if (data?.type !== 'explore-result') return;
    const entry = log.find((e) => e.id === data.id && e.answeredAt === undefined);
    if (!entry) return;
    entry.answeredAt = performance.now();
    entry.workerMs = data.result.elapsedMs ?? null;
    entry.violations = data.result.violations;
    entry.shrinkRuns = data.result.counterexample?.shrinkRuns ?? 0;
  };
  // An exploration on one worker is one `explore` request; spread over several, it starts with the
  // share of seed 1 and ends with the `explore-result` of the tab's own worker.
  const noteRequest = (message) => {
    if (message?.type === 'explore') log.push({ id: message.id, runs: message.runs, askedAt: performance.now() });
    if (message?.type === 'explore-seeds' && message.firstSeed === 1) log.push({ id: null, runs: null, askedAt: performance.now() });
    if (message?.type === 'explore-finish') {
      const entry = log.findLast((e) => e.id === null);
      if (entry) Object.assign(entry, { id: message.id, runs: message.summaries.length });
    }
  };
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      if (String(args[1]?.name ?? '').startsWith('pglite')) warm.workers++;
      this.addEventListener('message', onAnswer);
    }
    postMessage(message, ...rest) {
      noteRequest(message);
      return super.postMessage(message, ...rest);
    }
  };
  const portPost = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (message, ...rest) {
    noteRequest(message);
    return portPost.call(this, message, ...rest);
  };
}

/**
 * A fresh browser context and page on `lesson`'s lab, ready to run (the database booted).
 * `workers` (1 to 3) sets how many database workers the page explores on, as the setting in
 * localStorage does (components/db/explore-pool.ts); left out, the page decides from the hardware.
 */
export async function openLab(browser, baseUrl, lesson, workers) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (workers) await context.addInitScript((n) => localStorage.setItem('effectively-once.explore-workers', String(n)), workers);
  await context.addInitScript(watchExplorations);
  const page = await context.newPage();
  await page.goto(new URL(`/lab/${lesson}/`, baseUrl).href);
  await page.locator('[data-action="run"]:not([disabled])').waitFor({ timeout: WAIT_MS });
  await page.waitForFunction(() => !!window.__eoLab, undefined, { timeout: WAIT_MS });
  return { context, page };
}

/**
 * Wait, as a learner reading the brief would, until every database worker of the page has
 * finished warming up (or WARM_WAIT_MS passed: a build without warm-ups). Returns the warm-ups'
 * `{ workers, runs, doneMs }`, doneMs since navigation start, null when none finished.
 */
export async function waitForWarmUp(page) {
  try {
    // Helpers boot one after another (components/db/explore-pool.ts): wait for as many as the page plans.
    await page.waitForFunction(
      () => {
        const planned = Number(document.querySelector('[data-explore-workers]')?.getAttribute('data-explore-workers') ?? 1);
        return window.__eoWarm.workers >= planned && window.__eoWarm.answered >= window.__eoWarm.workers;
      },
      undefined,
      { timeout: WARM_WAIT_MS, polling: 50 },
    );
  } catch {
    return null;
  }
  const warm = await page.evaluate(() => window.__eoWarm);
  return { workers: warm.workers, runs: warm.runs, doneMs: warm.lastAt };
}

/**
 * Presenter mode's "Explore both" on a fresh page of `lesson`, once its workers have warmed up:
 * the starter's and the solution's 200 schedules, one after the other. Returns `{ ms, boundaryMs,
 * violations }`: ms from the click to the room's summary sentence on screen, boundaryMs from the
 * first exploration's request to the second's result at the page's boundary with its workers.
 */
export async function presenterExploreBoth(browser, baseUrl, lesson) {
  const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  await context.addInitScript(watchExplorations);
  const page = await context.newPage();
  try {
    await page.goto(new URL(`/demo/${lesson}/`, baseUrl).href);
    await page.locator('[data-action="explore-both"]:not([disabled])').waitFor({ timeout: WAIT_MS });
    const warmUp = await waitForWarmUp(page);
    const before = await page.evaluate(() => window.__eoExplores.length);
    const clickedAt = await page.evaluate(() => {
      const at = performance.now();
      document.querySelector('[data-action="explore-both"]').click();
      return at;
    });
    await page.waitForFunction(() => (document.querySelector('[data-testid="presenter-explore-summary"]')?.textContent ?? '') !== '', undefined, { timeout: WAIT_MS, polling: 'raf' });
    const shownAt = await page.evaluate(() => performance.now());
    const entries = await page.evaluate((n) => window.__eoExplores.slice(n), before);
    if (entries.length !== 2 || entries.some((e) => e.answeredAt === undefined)) throw new Error(`presenter ${lesson}: expected two answered explorations, saw ${JSON.stringify(entries)}`);
    return { ms: shownAt - clickedAt, boundaryMs: entries[1].answeredAt - entries[0].askedAt, violations: entries.map((e) => e.violations), warmUp };
  } finally {
    await context.close();
  }
}

/** A warm-up runs a few hundred schedules per worker; a loaded machine three times slower is allowed for. */
const WARM_WAIT_MS = 60_000;

/** Show `variant` ('starter' or 'solution') in the editor. */
export async function chooseVariant(page, variant) {
  await page.getByRole('button', { name: variant === 'starter' ? 'Starter' : 'Solution', exact: true }).click();
}

/**
 * Explore once with the page's own action and wait for the worker's answer. Returns
 * `{ ms, workerMs, violations, shrinkRuns }`: ms from request to result at the page's boundary.
 */
export async function exploreOnce(page) {
  const before = await page.evaluate(() => window.__eoExplores.length);
  await page.waitForFunction(() => window.__eoLab.perform('explore'), undefined, { timeout: WAIT_MS, polling: 50 });
  await page.waitForFunction((n) => window.__eoExplores.length > n && window.__eoExplores[n].answeredAt !== undefined, before, { timeout: WAIT_MS, polling: 20 });
  const entry = await page.evaluate((n) => window.__eoExplores[n], before);
  // Back to a state in which Explore is enabled again, before anything else is asked.
  await page.waitForFunction(() => window.__eoLab.actions().includes('explore'), undefined, { timeout: WAIT_MS });
  return { ms: entry.answeredAt - entry.askedAt, workerMs: entry.workerMs, violations: entry.violations, shrinkRuns: entry.shrinkRuns, runs: entry.runs };
}

/**
 * A CDP session on the page's database worker (the dedicated worker PGlite runs in): the page's
 * session auto-attaches to its workers, non-flattened, and commands go through
 * `Target.sendMessageToTarget`. Returns `send(method, params)`.
 */
export async function workerSession(page) {
  const cdp = await page.context().newCDPSession(page);
  const pending = new Map();
  let nextId = 1;
  let sessionId = null;
  const attached = new Promise((resolve) => {
    cdp.on('Target.attachedToTarget', (event) => {
      // The database worker is named 'pglite' (Monaco's workers are not).
      if (event.targetInfo.type !== 'worker' || !event.targetInfo.title.startsWith('pglite') || sessionId) return;
      sessionId = event.sessionId;
      resolve();
    });
  });
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    const message = JSON.parse(event.message);
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
    else waiter.resolve(message.result);
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  await attached;
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject, method });
      cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
    });
  return { send, detach: () => cdp.detach() };
}
