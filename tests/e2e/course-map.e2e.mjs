import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SCENARIO_CATALOG } from '../../simulations/lessons/catalog.ts';
import { axeSerious, launchBrowser, openPage, screenshot, setColorScheme, urlOf, waitForDbReady, E2E_WAIT_MS } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

// One load: the map is shot in light, then in dark (it follows the system's scheme without a reload).
test('course map lists every lesson in order and boots PostgreSQL; shot in light and dark', { timeout: 90_000 }, async (t) => {
  const { close, page, errors } = await openPage(browser);
  try {
    await page.goto(urlOf('/'));
    await assert.doesNotReject(page.getByRole('heading', { level: 1, name: 'Effectively Once' }).waitFor());

    const titles = await page.getByTestId('lesson-title').allInnerTexts();
    assert.deepEqual(titles, SCENARIO_CATALOG.map((s) => s.title), 'lesson titles, in catalog order');

    const links = page.getByTestId('lesson-link');
    const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(hrefs, SCENARIO_CATALOG.map((s) => `/lab/${s.id}/`), 'each lesson links to its lab');

    assert.match(await links.first().innerText(), /Start here/, 'the first lesson says "Start here"');
    for (let i = 1; i < SCENARIO_CATALOG.length; i++) {
      assert.doesNotMatch(await links.nth(i).innerText(), /Start here/, `lesson ${i + 1} is not the start`);
    }

    const started = Date.now();
    await waitForDbReady(page, 30_000);
    const statusText = await page.getByTestId('db-status-text').innerText();
    assert.match(statusText, /^ready \(PostgreSQL \d+(\.\d+)*\)$/, `status text: ${statusText}`);
    const version = await page.getByTestId('db-version').innerText();
    assert.match(version, /^PostgreSQL 1[89]\.\d+/, `SELECT version(): ${version}`);
    const timings = await page.getByTestId('db-status').getAttribute('data-boot-timings');
    t.diagnostic(`${version.split(' on ')[0]} ready ${Date.now() - started} ms after load; worker milestones (ms) ${timings}`);

    for (const colorScheme of ['light', 'dark']) {
      await setColorScheme(page, colorScheme);
      await screenshot(page, `course-map-${colorScheme}`);
    }
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});

test('an unknown address gets the 404 page', { timeout: E2E_WAIT_MS }, async () => {
  const { close, page } = await openPage(browser);
  try {
    const response = await page.goto(urlOf('/lab/no-such-lesson/'));
    assert.equal(response?.status(), 404);
    await page.getByRole('heading', { level: 1, name: 'No such page' }).waitFor();
    await page.getByRole('link', { name: 'Go to the course map' }).waitFor();
    // An embed's unknown address speaks to whoever wrote the iframe: no site chrome, and the map
    // opens in a new tab rather than inside the host's frame.
    const embedded = await page.goto(urlOf('/embed/quiz/no-such-question/'));
    assert.equal(embedded?.status(), 404);
    await page.getByRole('heading', { level: 1, name: 'Nothing to embed here' }).waitFor();
    assert.equal(await page.locator('body > header').isVisible(), false, 'no site header');
    assert.equal(await page.getByRole('link', { name: /Open the course map/ }).getAttribute('target'), '_blank');
  } finally {
    await close();
  }
});

test('the sections have index pages: /lab/, /demo/ and /embed/ list every lesson, linked to its page there', { timeout: 60_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    const sections = [
      ['/lab/', 'Labs', 'lesson-list', (id) => `/lab/${id}/`],
      ['/demo/', 'Presenter mode', 'demo-index', (id) => `/demo/${id}/`],
      ['/embed/', 'Embedding the labs', 'embed-index', (id) => `/embed/${id}/`],
    ];
    for (const [address, heading, testId, href] of sections) {
      const response = await page.goto(urlOf(address));
      assert.equal(response?.status(), 200, address);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      const hrefs = await page.getByTestId(testId).locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      assert.deepEqual(hrefs, SCENARIO_CATALOG.map((s) => href(s.id)), `${address} links every lesson, in order`);
      assert.deepEqual(await axeSerious(page), [], `${address}: no serious axe violations`);
    }
    // The presenter index leads into presenter mode.
    await page.goto(urlOf('/demo/'));
    await page.getByRole('link', { name: new RegExp(SCENARIO_CATALOG[0].title) }).click();
    await page.waitForURL(urlOf(`/demo/${SCENARIO_CATALOG[0].id}/`));
    await screenshot(page, 'demo-from-index');
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});
