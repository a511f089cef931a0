import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, urlOf, waitForDbReady, waitRunnable, waitVerdict, E2E_WAIT_MS } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Worker milestones on the page's clock, for the test's diagnostics. */
async function bootReport(page) {
  return page.getByTestId('db-status').evaluate((el) => ({
    prebuilt: el.getAttribute('data-prebuilt'),
    earlyWorker: el.getAttribute('data-worker-early'),
    workerCreatedMs: Number(el.getAttribute('data-worker-created-ms')),
    workerStartMs: Number(el.getAttribute('data-worker-start-ms')),
    timings: JSON.parse(el.getAttribute('data-boot-timings') ?? '{}'),
  }));
}

test('the lab boots PostgreSQL from the prebuilt data directory, served by the app itself', { timeout: 90_000 }, async (t) => {
  const { context, page, requests, errors } = await openPage(browser, { fresh: true });
  // Explore's helper workers run the same script as the tab's worker: openPage's one explore
  // worker (its default) makes every worker of that script the tab's.
  const warnings = [];
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  try {
    await page.goto(urlOf('/lab/receipt-redelivery/'));
    await waitForDbReady(page, 30_000);
    const report = await bootReport(page);
    t.diagnostic(`worker created at ${report.workerCreatedMs} ms; milestones ${JSON.stringify(report.timings)}`);
    assert.equal(report.prebuilt, 'true', 'booted from the prebuilt data directory (initdb skipped)');
    // The build put the worker's start into the page's HTML (scripts/early-worker.ts), and the page
    // took that worker over instead of starting a second one.
    assert.equal(report.earlyWorker, 'true', "the worker the page's HTML started was adopted");
    const earlyUrl = await page.evaluate(() => {
      const text = [...document.scripts].map((s) => s.textContent ?? '').find((t) => t.includes('__effectivelyOnceEarlyDbWorker')) ?? '';
      const literal = /new Worker\(("(?:[^"\\]|\\.)*")/.exec(text)?.[1];
      return literal ? new URL(JSON.parse(literal), location.href).href : null;
    });
    assert.ok(earlyUrl, "the page's HTML carries the early-worker script");
    // Monaco's workers use the same bootstrap with other chunks: only the database worker's URL counts.
    assert.equal(
      page.workers().filter((w) => w.url() === earlyUrl).length,
      1,
      `one database worker, not two (workers: ${page.workers().map((w) => w.url().slice(0, 120)).join(', ')})`,
    );
    // The page's HTML compiled PGlite's WebAssembly and posted it to the worker, which did not
    // download it a second time.
    assert.equal(report.timings.wasmCompiledBy, 'page', "the worker booted with the module the page's HTML compiled");
    assert.equal(requests.filter((u) => /pglite[^/]*\.wasm/.test(u)).length, 1, 'PGlite\'s WebAssembly is downloaded once');
    const origin = new URL(urlOf('/')).origin;
    const tarball = requests.find((u) => u.includes('pglite-datadir'));
    assert.ok(tarball, 'the data directory was fetched');
    assert.equal(new URL(tarball).origin, origin, 'from the app itself');
    assert.deepEqual(
      requests.filter((u) => /initdb[^/]*\.wasm/.test(u)),
      [],
      "initdb's WebAssembly is not downloaded: booting from the data directory never runs it",
    );
    // The worker started before the page finished hydrating, and the downloads before PGlite's code loaded.
    assert.ok(report.timings.entry <= report.timings.scriptLoaded, 'downloads start before PGlite and the engine load');
    assert.deepEqual(
      warnings.filter((w) => /prebuilt database/.test(w)),
      [],
      'no warning about the prebuilt database',
    );
    // Started with a small shared memory (simulations/pglite-start.ts), not the stock 128 MB it would zero at boot.
    await page.locator('#main').getByText('Query the database yourself').click();
    await page.getByLabel('SQL', { exact: true }).fill("SELECT current_setting('shared_buffers') AS shared_buffers");
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByTestId('query-result').getByRole('cell', { name: '8MB', exact: true }).waitFor({ timeout: E2E_WAIT_MS });
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await context.close();
  }
});

test('pages that never use the database do not start it; the first page that does, reached by a link, boots it', { timeout: 90_000 }, async () => {
  const { context, page, requests, errors } = await openPage(browser, { fresh: true });
  try {
    const pglite = () => requests.filter((u) => /pglite[^/]*\.(wasm|data)|pglite-datadir/.test(u));
    // A mistyped lab address gets the 404 page, which has nothing to run either.
    for (const where of ['/check/', '/try/', '/embed/quiz/lesson-receipt-key/', '/lab/no-such-lesson/']) {
      await page.goto(urlOf(where), { waitUntil: 'load' });
      await page.waitForTimeout(1500);
      assert.deepEqual(pglite(), [], `${where} downloads nothing of PGlite`);
      assert.equal(page.workers().filter((w) => w.url().includes('turbopack-worker')).length, 0, `${where} starts no database worker`);
      const html = await page.evaluate(() => document.documentElement.outerHTML);
      assert.doesNotMatch(html, /__effectivelyOnceEarlyDbWorker/, `${where}'s HTML does not start the worker`);
    }
    // From /check/, the header's link to the course map is a client-side navigation: the map's
    // status card asks for the database, and it boots then.
    await page.goto(urlOf('/check/'));
    await page.getByRole('link', { name: 'Effectively Once' }).click();
    await page.waitForURL(urlOf('/'));
    await waitForDbReady(page, 60_000);
    assert.ok(pglite().length >= 3, 'the course map booted the database');
    // The mistyped address's own 404 (and Chromium's console line for it) are expected; nothing else.
    const notFound = errors.findIndex((e) => e.startsWith('HTTP 404:') && e.endsWith('/lab/no-such-lesson/'));
    assert.ok(notFound >= 0 && /status of 404/.test(errors[notFound + 1] ?? ''), `the 404 was reported: ${JSON.stringify(errors)}`);
    errors.splice(notFound, 2);
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await context.close();
  }
});

test("when the HTML's worker cannot start, the page starts its own and the database still works", { timeout: 90_000 }, async () => {
  const { context, page, errors } = await openPage(browser, { fresh: true });
  const warnings = [];
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  // The page's HTML as a host with a stale copy would serve it: the early script names a
  // bootstrap that does not exist (its own chunks are fine).
  await page.route(/\/lab\/receipt-redelivery\/$/, async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    assert.ok(html.includes('__effectivelyOnceEarlyDbWorker'), 'the built page carries the early-worker script');
    await route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html.replace(/new Worker\("[^"#]*turbopack-worker-/, (m) => m.replace('turbopack-worker-', 'turbopack-worker-missing-')) });
  });
  try {
    await page.goto(urlOf('/lab/receipt-redelivery/'));
    await waitForDbReady(page, 60_000);
    assert.equal((await bootReport(page)).earlyWorker, 'false', "started from the page's code");
    assert.ok(
      warnings.some((w) => /started by the page's HTML\); starting it from the page's code instead/.test(w)),
      `a console warning says what happened (saw: ${JSON.stringify(warnings)})`,
    );
    await page.locator('#main').getByText('Query the database yourself').click();
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByTestId('query-result').waitFor({ timeout: E2E_WAIT_MS });
    assert.deepEqual(errors.filter((e) => !/turbopack-worker-missing|404|Failed to load resource/i.test(e)), [], 'no other page errors');
  } finally {
    await context.close();
  }
});

test("when the page cannot compile PGlite's WebAssembly, the worker compiles it and says why", { timeout: 90_000 }, async () => {
  const { context, page, requests, errors } = await openPage(browser, { fresh: true });
  const warnings = [];
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  // The first request for the module (the page's) fails; the worker's own gets it.
  let refused = 0;
  await context.route(/pglite[^/]*\.wasm/, (route) => (refused++ === 0 ? route.fulfill({ status: 503, body: 'busy' }) : route.continue()));
  try {
    await page.goto(urlOf('/lab/receipt-redelivery/'));
    await waitForDbReady(page, 60_000);
    const report = await bootReport(page);
    assert.equal(report.earlyWorker, 'true', "the HTML's worker is still the one adopted");
    assert.equal(report.timings.wasmCompiledBy, 'worker', 'the worker compiled the module itself');
    assert.equal(requests.filter((u) => /pglite[^/]*\.wasm/.test(u)).length, 2, 'asked for twice: the page, then the worker');
    assert.ok(
      warnings.some((w) => /could not compile PostgreSQL's WebAssembly for the database worker \(.*HTTP 503\); the worker compiles it itself/.test(w)),
      `a console warning says why (saw: ${JSON.stringify(warnings)})`,
    );
    // And the database it booted runs the lab: the starter's duplicate receipt shows.
    await waitRunnable(page);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    assert.match(await waitVerdict(page, /Violated/), /Violated/);
    assert.deepEqual(errors.filter((e) => !/503|Failed to load resource/i.test(e)), [], 'no other page errors');
  } finally {
    await context.close();
  }
});

test('without the prebuilt data directory the worker says so and runs initdb: the database still works', { timeout: 120_000 }, async () => {
  const { context, page, requests } = await openPage(browser, { fresh: true });
  const warnings = [];
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  await context.route(/pglite-datadir/, (route) => route.fulfill({ status: 404, body: 'gone' }));
  try {
    await page.goto(urlOf('/lab/receipt-redelivery/'));
    await waitForDbReady(page, 60_000);
    assert.equal((await bootReport(page)).prebuilt, 'false', 'booted the ordinary way');
    assert.ok(requests.some((u) => /initdb[^/]*\.wasm/.test(u)), "initdb's WebAssembly is fetched when initdb has to run");
    assert.ok(
      warnings.some((w) => /prebuilt database could not be loaded/.test(w)),
      `a console warning says why (saw: ${JSON.stringify(warnings)})`,
    );
    // The schema is there all the same.
    await page.locator('#main').getByText('Query the database yourself').click();
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByTestId('query-result').waitFor({ timeout: E2E_WAIT_MS });
  } finally {
    await context.close();
  }
});
