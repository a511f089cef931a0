/**
 * The security headers in real Chromium, against the built site as scripts/serve.mjs serves it:
 * every page loads and works under its Content-Security-Policy with no violation reported — by the
 * page (`securitypolicyviolation`, console) or by any of its workers (the database worker, Monaco's)
 * — while the lab boots PostgreSQL, shows Monaco, runs code and explores; a page on another origin
 * may frame /embed/ but not the lab. A canary first proves the watcher sees a violation at all.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, urlOf, waitRunnable, waitVerdict } from './helpers.mjs';

const SCENARIO = 'receipt-redelivery';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/**
 * Record every CSP violation the page, its frames and its workers report. `violations()` resolves
 * with them all (a worker that has ended has nothing more to say).
 */
async function watchCsp(context, page) {
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations.push(`${location.pathname}: ${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  const fromConsole = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) fromConsole.push(`console: ${m.text()}`);
  });
  const workers = [];
  page.on('worker', (worker) => {
    workers.push(worker);
    worker
      .evaluate(() => {
        self.__cspViolations = [];
        self.addEventListener('securitypolicyviolation', (e) => self.__cspViolations.push(`worker: ${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'}`));
      })
      .catch(() => {});
  });
  return {
    workers,
    async violations() {
      const found = [...fromConsole];
      for (const frame of page.frames()) found.push(...(await frame.evaluate(() => window.__cspViolations ?? []).catch(() => [])));
      for (const worker of workers) found.push(...(await worker.evaluate(() => self.__cspViolations ?? []).catch(() => [])));
      return found;
    },
  };
}

/** A failed wait in the lab, rethrown with what the lab showed then. */
function explainLab(page) {
  return async (error) => {
    const state = await page
      .evaluate(() => ({
        verdict: document.querySelector('[aria-label="Verdict"]')?.textContent,
        run: document.querySelector('[data-action="run"]')?.disabled ? 'disabled' : 'enabled',
        database: document.querySelector('[data-testid="db-status"]')?.getAttribute('data-status'),
      }))
      .catch(() => ({}));
    throw new Error(`${error.message}\nthe lab showed: ${JSON.stringify(state)}`);
  };
}

async function open(path) {
  const opened = await openPage(browser, { fresh: true });
  const csp = await watchCsp(opened.context, opened.page);
  const response = await opened.page.goto(urlOf(path));
  return { ...opened, csp, response };
}

/** The document's own headers: its CSP's directives, and whether another site may frame it. */
async function headersOf(response) {
  const headers = await response.allHeaders();
  const policy = headers['content-security-policy'] ?? '';
  assert.ok(policy, `${response.url()} has a Content-Security-Policy`);
  assert.equal(headers['x-content-type-options'], 'nosniff');
  assert.ok(headers['referrer-policy'], 'a Referrer-Policy');
  assert.doesNotMatch(policy, /script-src[^;]*'unsafe-inline'/, 'inline scripts are allowed by hash, not wholesale');
  return { policy, frameAncestorsNone: /frame-ancestors 'none'/.test(policy) };
}

test('canary: the watcher sees a violation in a page and in a worker', { timeout: 120_000 }, async () => {
  const { context, page, csp } = await open(`/lab/${SCENARIO}/`);
  try {
    await waitRunnable(page);
    await page.evaluate(() => {
      new Image().src = 'http://example.invalid/pixel.png';
    });
    await page.waitForFunction(() => window.__cspViolations.length > 0);
    // A worker reaching another origin is refused and reported (Monaco's: the database worker's
    // sandbox has no fetch at all).
    await page.locator('.monaco-editor').first().waitFor({ timeout: 60_000 });
    // Monaco starts its worker after the editor shows, later still on a loaded machine: wait for it.
    let withFetch;
    const deadline = Date.now() + 60_000;
    while (!withFetch && Date.now() < deadline) {
      for (const worker of csp.workers) {
        if (await worker.evaluate(() => typeof fetch === 'function').catch(() => false)) withFetch = worker;
      }
      if (!withFetch) await page.waitForEvent('worker', { timeout: 1_000 }).catch(() => null);
    }
    assert.ok(withFetch, `a worker with fetch among ${csp.workers.length}`);
    await withFetch.evaluate(() => fetch('http://example.invalid/x').catch(() => null));
    const seen = await csp.violations();
    assert.ok(seen.some((v) => /img-src blocked http:\/\/example\.invalid/.test(v)), `page violation seen: ${JSON.stringify(seen)}`);
    assert.ok(seen.some((v) => /worker: connect-src blocked http:\/\/example\.invalid/.test(v)), `worker violation seen: ${JSON.stringify(seen)}`);
  } finally {
    await context.close();
  }
});

test(`lab: PostgreSQL boots, Monaco shows, a run and an Explore work, with no CSP violation`, { timeout: 300_000 }, async () => {
  const { context, page, errors, csp, response } = await open(`/lab/${SCENARIO}/`);
  try {
    assert.equal((await headersOf(response)).frameAncestorsNone, true, 'the lab cannot be framed');
    await waitRunnable(page, 120_000);
    await page.locator('.monaco-editor').first().waitFor({ timeout: 60_000 });
    await page.getByLabel('Speed').selectOption('instant');
    // The learner's code as the lab opens (the starter's): compiled and run in the database worker.
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    assert.match(await waitVerdict(page, /Violated/, 120_000).catch(explainLab(page)), /2 receipts/, "the learner's code ran in the worker");
    await page.getByRole('button', { name: 'Explore', exact: true }).click();
    await page.getByRole('region', { name: 'Explorer' }).getByText(/\d+ of 200 schedules violated/).waitFor({ timeout: 240_000 });
    assert.ok(csp.workers.length >= 2, `the database worker and Monaco's workers started (${csp.workers.length})`);
    assert.deepEqual(await csp.violations(), []);
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await context.close();
  }
});

const PAGES = [
  { path: '/', ready: (page) => page.locator('main').first().waitFor(), frameable: false },
  { path: `/demo/${SCENARIO}/`, ready: (page) => page.waitForFunction(() => /^Ready$/.test(document.querySelector('[data-testid="presenter-status"]')?.textContent ?? ''), undefined, { timeout: 90_000 }), frameable: false },
  {
    path: `/embed/${SCENARIO}/`,
    ready: async (page) => {
      await waitRunnable(page, 120_000);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await waitVerdict(page, /Violated|Held/, 120_000);
    },
    frameable: true,
  },
  { path: '/embed/quiz/lesson-receipt-key/', ready: (page) => page.getByRole('radio').first().waitFor(), frameable: true },
  { path: '/check/', ready: (page) => page.getByRole('radio').first().waitFor(), frameable: false },
  { path: '/try/', ready: (page) => page.locator('main').first().waitFor(), frameable: false },
];

for (const { path, ready, frameable } of PAGES) {
  test(`${path}: loads and works with its headers and no CSP violation`, { timeout: 180_000 }, async () => {
    const { context, page, errors, csp, response } = await open(path);
    try {
      assert.equal(response.status(), 200);
      assert.equal((await headersOf(response)).frameAncestorsNone, !frameable, frameable ? 'other sites may frame it' : 'no other site may frame it');
      await ready(page);
      await page.waitForLoadState('load');
      assert.deepEqual(await csp.violations(), []);
      assert.deepEqual(errors, [], 'no page or console errors');
    } finally {
      await context.close();
    }
  });
}

test('the 404 page loads with its headers and no CSP violation', { timeout: 60_000 }, async () => {
  const { context, page, csp, response } = await open('/no/such/page/');
  try {
    assert.equal(response.status(), 404);
    await headersOf(response);
    await page.waitForLoadState('load');
    assert.deepEqual(await csp.violations(), []);
  } finally {
    await context.close();
  }
});

/** A course site's page on another origin (another port: a public name would trip Private Network Access). */
async function courseSite(body) {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/unit-3.html`, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('a course site on another origin may frame the embed, not the lab', { timeout: 180_000 }, async () => {
  const { context, page } = await openPage(browser, { fresh: true });
  const refused = [];
  page.on('console', (m) => /frame-ancestors/.test(m.text()) && refused.push(m.text()));
  const course = await courseSite(`<!doctype html><title>Unit 3</title>
    <iframe name="embed" src="${urlOf(`/embed/${SCENARIO}/`)}" width="900" height="700"></iframe>
    <iframe name="lab" src="${urlOf(`/lab/${SCENARIO}/`)}" width="900" height="700"></iframe>`);
  try {
    assert.notEqual(new URL(course.url).origin, new URL(urlOf('/')).origin);
    await page.goto(course.url);
    await waitRunnable(page.frame({ name: 'embed' }), 90_000);
    // The lab's frame gets the browser's error page instead of the lab.
    const lab = page.frame({ name: 'lab' });
    await lab.waitForLoadState('load');
    const labHasRun = await lab.evaluate(() => !!document.querySelector('[data-action="run"]')).catch(() => false);
    assert.equal(labHasRun, false, 'the lab did not render inside another site');
    assert.ok(refused.length > 0 || lab.url().startsWith('chrome-error:'), `the browser refused to frame the lab (${lab.url()}; ${JSON.stringify(refused)})`);
  } finally {
    await context.close();
    await course.close();
  }
});
