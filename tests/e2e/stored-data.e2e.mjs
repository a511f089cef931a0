/**
 * Stored data is validated, never trusted, in real Chromium: each bad value a browser can hold in
 * `eo:progress` (a field of the wrong type, a lesson entry that is not an object, a lesson the
 * course does not have, a sorting that is a number) leaves the course map and a lab working, names
 * the part left out in a polite notice, keeps every other part, and is gone from storage once the
 * learner says OK. Saved code of 100,000 lines is offered, not loaded: the lab stays usable, and
 * Load / Discard / Undo do what they say.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SCENARIO_CATALOG } from '../../simulations/lessons/catalog.ts';
import { axeSerious, launchBrowser, openPage, screenshot, setColorScheme, urlOf, waitRunnable, E2E_WAIT_MS } from './helpers.mjs';

const FIRST = SCENARIO_CATALOG[0];
const SECOND = SCENARIO_CATALOG[1];
const DIGEST = '0123456789abcdef';

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** A valid second lesson (done) and answer kept beside each bad part: the rest must survive. */
const goodParts = {
  [SECOND.id]: { visited: true, passed: true, explored: true, heldCode: [DIGEST], cleanCode: [DIGEST] },
};
const goodQuiz = { 'receipt-redelivery-what-happens': { choice: 'redelivered', correct: true } };

const CASES = [
  {
    name: 'heldCode: 5',
    progress: { version: 1, scenarios: { [FIRST.id]: { visited: true, heldCode: 5 }, ...goodParts }, quizzes: goodQuiz },
    notice: new RegExp(`${escape(FIRST.title)}.*which versions of your code held`),
    gone: (p) => p.scenarios[FIRST.id]?.heldCode === undefined && p.scenarios[FIRST.id]?.visited === true,
  },
  {
    name: 'a predicted.choice that is an object',
    progress: { version: 1, scenarios: { [FIRST.id]: { visited: true, predicted: { choice: { evil: 1 }, actual: '2' } }, ...goodParts }, quizzes: goodQuiz },
    notice: new RegExp(`${escape(FIRST.title)}.*your prediction`),
    gone: (p) => p.scenarios[FIRST.id]?.predicted === undefined && p.scenarios[FIRST.id]?.visited === true,
  },
  {
    name: '"sorting": 5',
    progress: { version: 1, scenarios: { ...goodParts }, quizzes: goodQuiz, sorting: 5 },
    notice: /The sorting exercise/,
    gone: (p) => p.sorting === undefined,
  },
  {
    name: 'a lesson entry that is a string',
    progress: { version: 1, scenarios: { [FIRST.id]: 'done', ...goodParts }, quizzes: goodQuiz },
    notice: new RegExp(`Everything about the lesson “${escape(FIRST.title)}”`),
    // The lab visited since stores a fresh entry for the lesson.
    gone: (p) => JSON.stringify(p.scenarios[FIRST.id]) === '{"visited":true}',
  },
  {
    name: 'an unknown lesson id',
    progress: { version: 1, scenarios: { 'no-such-lesson': { visited: true }, ...goodParts }, quizzes: goodQuiz },
    notice: /A lesson this course does not have \(“no-such-lesson”\)/,
    gone: (p) => p.scenarios['no-such-lesson'] === undefined,
  },
];

/** Put `entries` into this origin's localStorage (from a page of the site), then load `path`. */
async function seed(page, entries, path) {
  // A page of the site that keeps no progress of its own (a bare SVG would 404 its favicon).
  await page.goto(urlOf('/try/'));
  await page.evaluate((e) => {
    localStorage.clear();
    for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v);
  }, entries);
  await page.goto(urlOf(path));
}

const storedProgress = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('eo:progress') ?? 'null'));

for (const c of CASES) {
  test(`stored ${c.name}: the map and a lab work, the part is named and dropped, the rest kept`, { timeout: 120_000 }, async () => {
    const { close, page, errors } = await openPage(browser);
    try {
      await seed(page, { 'eo:progress': JSON.stringify(c.progress) }, '/');
      const notice = page.getByTestId('stored-data-notice');
      await notice.waitFor({ timeout: E2E_WAIT_MS });
      assert.match(await notice.innerText(), c.notice);
      assert.match(await notice.innerText(), /everything else you did is kept/);
      // The map renders every lesson, and the valid lesson and answer are still there.
      assert.equal(await page.getByTestId('lesson-link').count(), SCENARIO_CATALOG.length);
      assert.equal(await page.getByTestId('lesson-link').nth(1).getAttribute('data-state'), 'done', 'the valid lesson is kept');
      assert.match(await page.getByTestId('progress-summary').innerText(), /^1 of \d+ lessons done/);

      // The same stored value in a lab (read again, across a reload: nothing was written yet).
      await page.goto(urlOf(`/lab/${FIRST.id}/`));
      await page.getByTestId('stored-data-notice').waitFor({ timeout: E2E_WAIT_MS });
      await waitRunnable(page);
      assert.match(await page.getByTestId('stored-data-notice').innerText(), c.notice);
      assert.equal(await page.getByTestId('passed-chip').getAttribute('data-done'), 'false');

      // OK: the notice goes, storage holds the progress without the part, and a reload says nothing more.
      await page.getByRole('button', { name: 'OK, forget those parts' }).click();
      await page.getByTestId('stored-data-notice').waitFor({ state: 'detached' });
      const stored = await storedProgress(page);
      assert.ok(c.gone(stored), `the bad part is gone from storage: ${JSON.stringify(stored)}`);
      assert.deepEqual(stored.scenarios[SECOND.id], goodParts[SECOND.id], 'the valid lesson is stored as it was');
      assert.deepEqual(stored.quizzes, goodQuiz, 'the valid answer is stored as it was');
      await page.goto(urlOf('/'));
      await page.getByTestId('lesson-list').waitFor();
      await page.getByTestId('progress-summary').filter({ hasText: /^1 of/ }).waitFor();
      assert.equal(await page.getByTestId('stored-data-notice').count(), 0);
      assert.deepEqual(errors, [], 'no page or console errors');
    } finally {
      await close();
    }
  });
}

// One load: the notice is checked and shot in light, then in dark (the page follows the system's
// scheme without a reload).
test('stored progress that is not JSON, and a notice that passes axe in light and dark', { timeout: 90_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    await seed(page, { 'eo:progress': '{"version":1,"scenarios":' }, '/');
    const notice = page.getByTestId('stored-data-notice');
    await notice.waitFor({ timeout: E2E_WAIT_MS });
    assert.match(await notice.innerText(), /not readable JSON/);
    for (const colorScheme of ['light', 'dark']) {
      await setColorScheme(page, colorScheme);
      assert.deepEqual(await axeSerious(page), [], `no serious axe violations (${colorScheme})`);
      await screenshot(page, `stored-data-notice-${colorScheme}`);
    }
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});

const HUGE = Array.from({ length: 100_000 }, (_, i) => `const a${i} = ${i};`).join('\n');

test('saved code of 100,000 lines is offered, not loaded: the lab works; Discard, Undo, and nothing typed meanwhile is saved over it', { timeout: 180_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    const key = `eo:code:${FIRST.id}`;
    await seed(page, { [key]: HUGE }, `/lab/${FIRST.id}/`);
    const offer = page.getByTestId('large-code-offer');
    await offer.waitFor({ timeout: E2E_WAIT_MS });
    assert.match(await offer.innerText(), /Your saved code is \d\.\d MB \(100,000 lines\)/);
    await waitRunnable(page);
    assert.ok((await page.evaluate(() => window.__eoLab.getCode().length)) < 20_000, 'the editor holds the starter');
    assert.deepEqual(await axeSerious(page), [], 'no serious axe violations with the offer shown');
    await screenshot(page, 'large-code-offer');

    // Typed while the offer is open: not saved over the large code.
    await page.evaluate(() => window.__eoLab.setCode('// typed while the offer was open\n'));
    assert.equal(await page.evaluate((k) => localStorage.getItem(k)?.length, key), HUGE.length);

    await offer.getByRole('button', { name: 'Discard it' }).click();
    await page.getByTestId('large-code-discarded').waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Undo');
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), key), '// typed while the offer was open\n', 'Discard keeps what is in the editor');
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await offer.waitFor();
    assert.equal(await page.evaluate((k) => localStorage.getItem(k)?.length, key), HUGE.length, 'Undo stores the large code again');
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});

test('large saved code loads when the learner asks for it', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    // Over the line limit, small enough to load quickly.
    const code = Array.from({ length: 3_500 }, (_, i) => `// ${i}`).join('\n');
    await seed(page, { [`eo:code:${FIRST.id}`]: code }, `/lab/${FIRST.id}/`);
    const offer = page.getByTestId('large-code-offer');
    await offer.waitFor({ timeout: E2E_WAIT_MS });
    assert.match(await offer.innerText(), /3,500 lines/);
    await offer.getByRole('button', { name: 'Load it anyway' }).click();
    await offer.waitFor({ state: 'detached' });
    await page.waitForFunction((n) => window.__eoLab?.getCode().length === n, code.length);
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});

test('every test starts as a new learner: the reused tab finds nothing the last test stored, added or set', { timeout: 60_000 }, async () => {
  const first = await openPage(browser);
  try {
    await first.page.addInitScript(() => (window.__leftOver = true));
    await first.page.setViewportSize({ width: 700, height: 500 });
    await first.page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await first.page.goto(urlOf('/try/'));
    await first.page.evaluate(async () => {
      localStorage.setItem('eo:left-over', '1');
      sessionStorage.setItem('eo:left-over', '1');
      document.cookie = 'eo-left-over=1; path=/';
      await caches.open('eo-left-over');
      await new Promise((resolve, reject) => {
        const request = indexedDB.open('eo-left-over');
        request.onsuccess = () => resolve(request.result.close());
        request.onerror = () => reject(request.error);
      });
    });
  } finally {
    await first.close();
  }
  const second = await openPage(browser);
  try {
    assert.equal(second.page, first.page, 'the tab (and its renderer’s caches) is reused');
    await second.page.goto(urlOf('/try/'));
    const left = await second.page.evaluate(async () => ({
      localStorage: Object.keys(localStorage).filter((k) => k !== 'effectively-once.explore-workers'),
      sessionStorage: Object.keys(sessionStorage),
      cookies: document.cookie,
      caches: await caches.keys(),
      indexedDB: (await indexedDB.databases()).map((d) => d.name),
      initScript: window.__leftOver ?? null,
      viewport: [window.innerWidth, window.innerHeight],
      dark: window.matchMedia('(prefers-color-scheme: dark)').matches,
      reducedMotion: window.matchMedia('(prefers-reduced-motion: reduce)').matches,
      hovered: document.querySelectorAll(':hover').length,
    }));
    assert.deepEqual(left, { localStorage: [], sessionStorage: [], cookies: '', caches: [], indexedDB: [], initScript: null, viewport: [1280, 900], dark: false, reducedMotion: false, hovered: 0 });
  } finally {
    await second.close();
  }
});
