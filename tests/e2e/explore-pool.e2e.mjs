/**
 * Exploring on more than one database worker in the tab (components/db/explore-pool.ts): the same
 * exploration on one worker and on two gives the same result, counterexample included; both
 * workers really take shares; the workers warm up while the page is idle; and a learner who asks
 * for a run at once is served at once, the warm-up stopped.
 *
 * The number of workers is set as a learner could (localStorage, read when the page loads), so
 * the comparison does not depend on this machine's cores.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { E2E_WAIT_MS, launchBrowser, openPage, urlOf, waitRunnable, waitVerdict } from './helpers.mjs';

const LAB = '/lab/receipt-redelivery/';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/**
 * Runs in the page before its scripts: the workers setting, and a log of what the page and its
 * database workers say to each other (after 'ready' each worker answers on a port of its own).
 */
function watchWorkers(setting) {
  localStorage.setItem('effectively-once.explore-workers', setting);
  const log = (window.__eoPool = { workers: 0, asked: [], answered: [], results: [], warmResults: [], runOnWarm: false });
  let nextWorker = 0;
  const listen = (target, worker) =>
    target.addEventListener('message', (event) => {
      const data = event.data;
      if (data?.type === 'ready' && data.port) listen(data.port, worker);
      if (data?.type === 'explore-seeds-result') log.answered.push({ worker, seeds: data.summaries.map((s) => s.seed) });
      if (data?.type === 'explore-result') log.results.push(data.result);
      if (data?.type === 'warm-result') log.warmResults.push({ worker, runs: data.runs });
    });
  const note = (message) => {
    if (message?.type) log.asked.push(message.type);
    // Ask for a run in the very next task after the first warm-up is asked for.
    if (message?.type === 'warm' && log.runOnWarm) {
      log.runOnWarm = false;
      setTimeout(() => window.__eoLab?.perform('run'));
    }
  };
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      const worker = nextWorker++;
      if (String(args[1]?.name ?? '').startsWith('pglite')) log.workers++;
      listen(this, worker);
    }
    postMessage(message, ...rest) {
      note(message);
      return super.postMessage(message, ...rest);
    }
  };
  const portPost = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (message, ...rest) {
    note(message);
    return portPost.call(this, message, ...rest);
  };
}

async function openLab(setting) {
  const opened = await openPage(browser);
  await opened.page.addInitScript(watchWorkers, setting);
  await opened.page.goto(urlOf(LAB));
  await waitRunnable(opened.page);
  await opened.page.waitForFunction(() => !!window.__eoLab);
  return opened;
}

/** Wait until every database worker of the page has finished its warm-up. */
async function warmedUp(page, workers) {
  await page.waitForFunction((n) => window.__eoPool.workers === n && window.__eoPool.warmResults.length === n, workers, { timeout: 2 * E2E_WAIT_MS, polling: 100 });
}

/** The starter explored with the page's own Explore action: the worker's result. */
async function exploreStarter(page) {
  await page.getByRole('button', { name: 'Starter', exact: true }).click();
  const before = await page.evaluate(() => window.__eoPool.results.length);
  await page.waitForFunction(() => window.__eoLab.perform('explore'), undefined, { polling: 50 });
  await page.waitForFunction((n) => window.__eoPool.results.length > n, before, { timeout: 2 * E2E_WAIT_MS, polling: 50 });
  await page.getByRole('region', { name: 'Explorer' }).getByText(/of 200 schedules violated/).waitFor();
  return page.evaluate((n) => window.__eoPool.results[n], before);
}

const withoutRate = ({ schedulesPerSecond: _rate, ...rest }) => rest;

test('an exploration spread over two workers gives the result one worker gives, and both take shares', { timeout: 8 * E2E_WAIT_MS }, async () => {
  const one = await openLab('1');
  let single;
  try {
    await warmedUp(one.page, 1);
    single = await exploreStarter(one.page);
    const asked = await one.page.evaluate(() => window.__eoPool.asked);
    assert.ok(asked.includes('explore') && !asked.includes('explore-seeds'), `one worker explores whole: ${asked.join(', ')}`);
  } finally {
    await one.close();
  }

  const two = await openLab('2');
  try {
    await warmedUp(two.page, 2);
    assert.equal(await two.page.getByTestId('db-status').getAttribute('data-explore-workers'), '2', 'the page says how many workers it explores on');
    // The warm-ups ran hundreds of schedules in the tab's database and left no row of theirs.
    await two.page.locator('#main').getByText('Query the database yourself').click();
    const panel = two.page.getByTestId('query-panel');
    await two.page.getByLabel('SQL', { exact: true }).fill("SELECT (SELECT count(*) FROM operations) + (SELECT count(*) FROM outbox) + (SELECT count(*) FROM orders) AS rows_left");
    await panel.getByRole('button', { name: 'Run query' }).click();
    await panel.getByTestId('query-result').getByRole('columnheader', { name: 'rows_left' }).waitFor();
    assert.deepEqual(await panel.getByTestId('query-result').getByRole('cell').allInnerTexts(), ['0'], 'the warm-ups left the tables empty');
    const spread = await exploreStarter(two.page);
    const pool = await two.page.evaluate(() => window.__eoPool);
    const workersWithShares = new Set(pool.answered.map((a) => a.worker));
    assert.equal(workersWithShares.size, 2, `both workers ran shares: ${JSON.stringify(pool.answered.map((a) => [a.worker, a.seeds[0]]))}`);
    const seeds = pool.answered.flatMap((a) => a.seeds).sort((a, b) => a - b);
    assert.deepEqual(seeds, Array.from({ length: 200 }, (_, i) => i + 1), 'every seed ran exactly once');
    assert.ok(single.violations > 0 && single.counterexample, 'the starter breaks: a counterexample to compare');
    assert.deepEqual(withoutRate(spread), withoutRate(single));
    // What the learner reads is the same too: the counterexample's replay is offered.
    await two.page.getByRole('region', { name: 'Explorer' }).getByText(`${single.violations} of 200 schedules violated`, { exact: false }).waitFor();
    assert.deepEqual(two.errors, []);
  } finally {
    await two.close();
  }
});

test('a run asked for while the workers warm up is served at once: the warm-up stops at its next schedule', { timeout: 4 * E2E_WAIT_MS }, async () => {
  const opened = await openPage(browser);
  const { close, page } = opened;
  try {
    await page.addInitScript(watchWorkers, '1');
    await page.addInitScript(() => {
      window.__eoPool.runOnWarm = true;
    });
    await page.goto(urlOf(LAB));
    await waitRunnable(page);
    await waitVerdict(page, /Violated|Held/);
    await page.waitForFunction(() => window.__eoPool.warmResults.length === 1, undefined, { timeout: 2 * E2E_WAIT_MS, polling: 100 });
    const pool = await page.evaluate(() => window.__eoPool);
    const firstWarm = pool.asked.indexOf('warm');
    assert.ok(firstWarm >= 0 && pool.asked.indexOf('run', firstWarm) > firstWarm, `a run followed the warm-up: ${pool.asked.join(', ')}`);
    // WARM_RUNS (100) seeds of the starter and the solution: a full warm-up is 200 schedules.
    assert.ok(pool.warmResults[0].runs < 200, `the warm-up stopped early (${pool.warmResults[0].runs} schedules)`);
    assert.deepEqual(opened.errors, []);
  } finally {
    await close();
  }
});
