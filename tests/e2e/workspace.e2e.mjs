/**
 * The lab as one workspace and presenter mode on real screens, in real Chromium: at 1366×768 the
 * editor, Run, the timeline and the verdict are on screen together after a run, without scrolling;
 * what a control changes ("Show event N") comes into view; the situation and Run come before the
 * editor in Tab order and Escape leaves the editor; presenter mode's timeline is never under its
 * controls at 1280×720 and 1024×768, spans a 1920×1080 screen in 18 px type, shows a row lesson's
 * tables and stops End at the outcome; on a phone its controls leave the screen to the demonstration;
 * an embed's options take parts away. Screenshots of every size land in tests/artifacts/e2e/.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeSerious, launchBrowser, nextFrames, openPage, setColorScheme, urlOf, waitRunnable, waitVerdict, E2E_WAIT_MS, PHONE, screenShot } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/**
 * Whether `locator`'s box lies wholly inside the viewport and its centre is not covered by
 * anything else (the element at that point is it or inside it).
 */
async function onScreen(page, locator, what) {
  const box = await locator.boundingBox();
  assert.ok(box, `${what} is rendered`);
  const { width, height } = page.viewportSize();
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= width + 0.5 && box.y + box.height <= height + 0.5, `${what} is wholly on the ${width}×${height} screen (x ${Math.round(box.x)}–${Math.round(box.x + box.width)}, y ${Math.round(box.y)}–${Math.round(box.y + box.height)})`);
  const uncovered = await locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 20));
    return !!hit && (el === hit || el.contains(hit));
  });
  assert.ok(uncovered, `nothing covers ${what}`);
  return box;
}

async function openLab(scenario, { width, height, colorScheme = 'light', device } = {}) {
  const opened = await openPage(browser, { colorScheme, device: device ?? { viewport: { width, height } } });
  try {
    await opened.page.goto(urlOf(`/lab/${scenario}/`));
    await waitRunnable(opened.page);
    return opened;
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** Run the demonstration to its verdict at once (Instant), from the top of the page. */
async function runToVerdict(page) {
  await page.getByLabel('Speed').selectOption('instant');
  await page.locator('[data-action="run"]').click();
  await waitVerdict(page, /Violated|Held/);
  await page.getByRole('group', { name: /^Timeline: / }).waitFor();
}

test('lab at 1366×768: after a run the editor, Run, the timeline and the verdict are all on screen without scrolling; Show event N keeps the timeline in view', { timeout: 240_000 }, async () => {
  const { close, page, errors } = await openLab('receipt-redelivery', { width: 1366, height: 768 });
  try {
    await page.waitForFunction(() => document.querySelector('[data-testid="code-editor"]')?.getAttribute('data-editor-ready') === 'true', undefined, { timeout: E2E_WAIT_MS });
    await screenShot(page, 'workspace-1366x768-ready');
    await runToVerdict(page);
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'the page is not scrolled');
    await onScreen(page, page.getByTestId('code-editor'), 'the editor');
    await onScreen(page, page.locator('[data-action="run"]'), 'Run');
    await onScreen(page, page.getByRole('group', { name: /^Timeline: / }), 'the timeline');
    const verdict = page.getByRole('status', { name: 'Verdict' });
    const headline = verdict.locator('p').first();
    await onScreen(page, headline, 'the verdict’s headline');
    assert.match(await headline.innerText(), /Violated/);
    await screenShot(page, 'workspace-1366x768-run');

    // "Show event N" (under the verdict, in the run column) selects the event and the timeline stays in sight.
    const show = verdict.getByRole('button', { name: /^Show event \d+$/ }).first();
    const n = Number((await show.innerText()).match(/\d+/)[0]);
    await show.click();
    await page.waitForFunction((i) => document.querySelector('[role="group"][aria-label^="Timeline"] [aria-current="step"]')?.getAttribute('aria-label')?.startsWith(`Event ${i},`), n);
    await onScreen(page, page.getByRole('group', { name: /^Timeline: / }), 'the timeline after Show event');
    await onScreen(page, page.locator('[role="group"][aria-label^="Timeline"] [aria-current="step"]'), `event ${n}’s mark`);
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'the page did not move');
    assert.deepEqual(await axeSerious(page), []);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

for (const [width, height] of [
  [1920, 1080],
  [1280, 720],
  [1024, 768],
]) {
  // One load: the run's state is shot and checked in light, then in dark (the page follows the
  // system's scheme: CSS and Monaco's theme), before the log's SQL is opened in light.
  test(`lab at ${width}×${height}: screenshots after a run, light and dark, axe clean`, { timeout: 240_000 }, async () => {
    const { close, page, errors } = await openLab('dual-write', { width, height });
    try {
      await runToVerdict(page);
      for (const colorScheme of ['light', 'dark']) {
        await setColorScheme(page, colorScheme);
        await screenShot(page, `workspace-${width}x${height}-${colorScheme}`);
        // After the run, before anything scrolls the run column (opening the log's SQL below does).
        if (width >= 1280) {
          await onScreen(page, page.locator('[data-action="run"]'), `Run (${colorScheme})`);
          await onScreen(page, page.getByRole('group', { name: /^Timeline: / }), `the timeline (${colorScheme})`);
        }
      }
      assert.deepEqual(await axeSerious(page), [], 'dark');
      await setColorScheme(page, 'light');
      // The relay's SELECT is cut in the narration: the log opens it to its full text.
      await page.getByRole('button', { name: /^full SQL of event \d+$/ }).first().click();
      const sql = page.locator('pre[id^="event-sql-"]').first();
      await sql.waitFor();
      const text = (await sql.innerText()).replace(/\s+/g, ' ');
      assert.ok(text.length > 72 && /^(INSERT|SELECT|UPDATE)/.test(text), `the whole statement, past the narration’s cut (${text.length} characters)`);
      assert.deepEqual(await axeSerious(page), [], 'light');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
}

test('lab on a phone (390×844): one column, the situation above the code, Run brings the timeline into view', { timeout: 240_000 }, async () => {
  const { close, page, errors } = await openLab('receipt-redelivery', { device: PHONE });
  try {
    const brief = await page.getByTestId('scenario-brief').boundingBox();
    const code = await page.getByTestId('code-editor').boundingBox();
    assert.ok(brief && code && brief.y < code.y, 'the situation comes before the code');
    await screenShot(page, 'workspace-phone-ready');
    await page.getByLabel('Speed').selectOption('instant');
    await page.locator('[data-action="run"]').click();
    await waitVerdict(page, /Violated/);
    const timeline = page.getByRole('group', { name: /^Timeline: / });
    await page.waitForFunction(() => {
      const r = document.querySelector('[role="group"][aria-label^="Timeline"]')?.getBoundingClientRect();
      return !!r && r.top >= 0 && r.top < window.innerHeight;
    });
    assert.ok(await timeline.isVisible());
    await screenShot(page, 'workspace-phone-run');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('lab keyboard: the situation and Run come before the editor in Tab order; Escape leaves the editor, whose hint shows while it has the focus', { timeout: 240_000 }, async () => {
  const { close, page, errors } = await openLab('receipt-redelivery', { width: 1366, height: 768 });
  try {
    await page.waitForFunction(() => document.querySelector('[data-testid="code-editor"]')?.getAttribute('data-editor-ready') === 'true', undefined, { timeout: E2E_WAIT_MS });
    // Tab from the top of the page until the editor takes the focus, noting what came first.
    await page.locator('body').focus();
    const seen = [];
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const what = await page.evaluate(() => {
        const el = document.activeElement;
        if (el?.closest('[data-testid="code-editor"]')) return 'editor';
        if (el?.getAttribute('data-action') === 'run') return 'run';
        if (el?.getAttribute('aria-controls')?.endsWith('-situation')) return 'situation';
        return el?.tagName ?? 'none';
      });
      seen.push(what);
      if (what === 'editor') break;
    }
    assert.equal(seen.at(-1), 'editor', `the editor is reached by Tab: ${seen.join(' ')}`);
    assert.ok(seen.indexOf('situation') >= 0 && seen.indexOf('situation') < seen.indexOf('editor'), `the situation's toggle before the editor: ${seen.join(' ')}`);
    assert.ok(seen.indexOf('run') >= 0 && seen.indexOf('run') < seen.indexOf('editor'), `Run before the editor: ${seen.join(' ')}`);

    const hint = page.getByTestId('editor-focus-hint');
    await hint.waitFor({ state: 'visible' });
    assert.match(await hint.innerText(), /Esc leaves the editor/);
    assert.match(await page.getByTestId('editor-hint').innerText(), /Esc leaves the editor/);
    await screenShot(page, 'workspace-editor-focused');
    const before = await page.evaluate(() => window.__eoLab.getCode());
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.activeElement?.closest('[data-testid="code-editor"]'));
    await hint.waitFor({ state: 'hidden' });
    assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), 'BODY', 'the focus went on to the next control');
    assert.equal(await page.evaluate(() => window.__eoLab.getCode()), before, 'Escape changed nothing in the code');
    // Shift+Tab goes back into the editor, and a second Escape leaves it again.
    await page.keyboard.press('Shift+Tab');
    await page.waitForFunction(() => !!document.activeElement?.closest('[data-testid="code-editor"]'));
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.activeElement?.closest('[data-testid="code-editor"]'));
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

const presenterStatus = (page) => page.getByTestId('presenter-status').innerText();

async function waitPresenter(page, pattern) {
  await page.waitForFunction(
    (source) => new RegExp(source).test(document.querySelector('[data-testid="presenter-status"]')?.textContent ?? ''),
    pattern.source,
    { timeout: E2E_WAIT_MS },
  );
  return presenterStatus(page);
}

async function openPresenter(scenario, { width, height, colorScheme = 'light', device }) {
  const opened = await openPage(browser, { colorScheme, device: device ?? { viewport: { width, height } } });
  try {
    await opened.page.goto(urlOf(`/demo/${scenario}/`));
    await waitPresenter(opened.page, /^Ready$/);
    // The page's HTML already says Ready; the keys work once Next is enabled (hydrated, database up).
    await opened.page.waitForFunction(() => document.querySelector('[data-action="step"]')?.disabled === false, undefined, { timeout: E2E_WAIT_MS });
    return opened;
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** The timeline is wholly above the presenter's controls and below the narration. */
async function timelineClear(page, what) {
  const timeline = await page.getByRole('group', { name: /^Timeline: / }).boundingBox();
  const controls = await page.getByTestId('presenter-controls').boundingBox();
  const narration = await page.getByTestId('narration').boundingBox();
  assert.ok(timeline && controls && narration, 'rendered');
  assert.ok(timeline.y + timeline.height <= controls.y + 0.5, `${what}: the timeline ends above the controls (timeline ${Math.round(timeline.y)}–${Math.round(timeline.y + timeline.height)}, controls from ${Math.round(controls.y)})`);
  assert.ok(timeline.y >= narration.y + narration.height - 0.5, `${what}: the timeline starts below the narration`);
  assert.ok(controls.y + controls.height <= page.viewportSize().height + 0.5, `${what}: the controls are on screen`);
}

// One load per lesson, resized from 1280×720 to 1024×768: presenter mode's layout is CSS media
// queries, a media hook that follows their change events and a timeline that measures itself with a
// ResizeObserver, so a resized page lays out as one loaded at that size. R takes the demonstration
// back to Ready, where a fresh load starts, and the walk is made again at the new size.
for (const scenario of ['receipt-redelivery', 'dual-write']) {
  test(`presenter at 1280×720, then 1024×768 (${scenario}): at each size the timeline is never under the controls, stepping or at the outcome`, { timeout: 240_000 }, async () => {
    const { close, page, errors } = await openPresenter(scenario, { width: 1280, height: 720 });
    try {
      for (const [width, height] of [
        [1280, 720],
        [1024, 768],
      ]) {
        if (width !== 1280) {
          await page.setViewportSize({ width, height });
          await page.keyboard.press('r');
          await waitPresenter(page, /^Ready$/);
          await nextFrames(page);
        }
        const at = `${width}×${height}`;
        await screenShot(page, `presenter-${scenario}-${width}x${height}-ready`);
        for (let i = 1; i <= 4; i++) {
          await page.keyboard.press('PageDown');
          await waitPresenter(page, new RegExp(`^Event ${i} of`));
        }
        await timelineClear(page, `${at}, event 4`);
        await screenShot(page, `presenter-${scenario}-${width}x${height}-step`);
        await page.keyboard.press('End');
        await page.getByTestId('presenter-verdict').waitFor();
        await timelineClear(page, `${at}, at the outcome, with the verdict`);
        await screenShot(page, `presenter-${scenario}-${width}x${height}-end`);
      }
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
}

test('presenter at 1920×1080 (dual-write): the timeline spans the screen in 18 px type, the tables are on screen, End stops at the outcome', { timeout: 180_000 }, async () => {
  const { close, page, errors } = await openPresenter('dual-write', { width: 1920, height: 1080 });
  try {
    await page.keyboard.press('End');
    await page.getByTestId('presenter-verdict').waitFor();
    const status = await waitPresenter(page, /^Event \d+ of \d+$/);
    const [at, total] = status.match(/\d+/g).map(Number);
    assert.ok(at < total - 10, `End stops at the outcome, not the relay's idle polls (${status})`);
    assert.match(await page.getByTestId('narration-sentence').innerText(), /^shop/, 'the outcome is the shop’s');
    const timeline = await page.getByRole('group', { name: /^Timeline: / }).boundingBox();
    assert.ok(timeline.width >= 1800, `the timeline spans the width (${Math.round(timeline.width)} of 1920 px)`);
    const svg = await page.getByTestId('presenter-timeline').locator('svg').first().boundingBox();
    assert.ok(svg.width >= 1500, `the drawing uses it (${Math.round(svg.width)} px)`);
    const px = await page.locator('text[data-time-label]').first().evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    const zoom = await page.getByTestId('presenter-timeline').evaluate((el) => getComputedStyle(el).zoom);
    assert.ok(px >= 18 && Number(zoom || 1) === 1, `axis text is at least 18 px (${px} px, zoom ${zoom})`);
    const tables = await page.getByTestId('presenter-tables').boundingBox();
    assert.ok(tables && tables.y < 1080 - 100, `the tables are on screen (from y ${Math.round(tables?.y)})`);
    assert.match(await page.getByTestId('presenter-tables').innerText(), /orders/);
    await screenShot(page, 'presenter-dual-write-1920x1080-end');
    // → still walks on past the outcome.
    await page.keyboard.press('ArrowRight');
    await waitPresenter(page, new RegExp(`^Event ${at + 1} of ${total}$`));
    assert.deepEqual(await axeSerious(page), []);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('presenter on a phone (390×844): the controls are a remote along the bottom, not the whole screen', { timeout: 180_000 }, async () => {
  const { close, page, errors } = await openPresenter('receipt-redelivery', { device: PHONE });
  try {
    await page.getByRole('button', { name: 'Next →' }).click();
    await waitPresenter(page, /^Event 1 of/);
    const controls = await page.getByTestId('presenter-controls').boundingBox();
    assert.ok(controls.height <= 844 * 0.4, `the controls take ${Math.round(controls.height)} of 844 px`);
    assert.ok(controls.y + controls.height <= 844.5, 'they are on screen');
    const tops = await page.getByRole('toolbar', { name: 'Presenter controls' }).getByRole('button').evaluateAll((bs) => bs.map((b) => Math.round(b.getBoundingClientRect().top)));
    assert.equal(new Set(tops).size, 1, `Back, Play, Next and Reset share one row (${tops.join(', ')})`);
    await onScreen(page, page.getByTestId('narration-sentence'), 'the narration');
    await screenShot(page, 'presenter-phone-step');
    await page.getByRole('button', { name: 'Next →' }).click();
    await waitPresenter(page, /^Event 2 of/);
    assert.deepEqual(await axeSerious(page), []);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('embed options: compact=1 leaves out the situation and the database card and folds the panes; the page is shorter for it', { timeout: 240_000 }, async () => {
  const heights = {};
  for (const query of ['', '?compact=1', '?brief=0&db=0']) {
    const { close, page, errors } = await openPage(browser, { device: { viewport: { width: 900, height: 900 } } });
    try {
      await page.goto(urlOf(`/embed/receipt-redelivery/${query}`));
      await waitRunnable(page);
      await page.getByLabel('Speed').selectOption('instant');
      await page.locator('[data-action="run"]').click();
      await waitVerdict(page, /Violated/);
      const briefShown = await page.getByTestId('scenario-brief').count();
      const dbShown = await page.getByTestId('db-status').count();
      if (query === '') {
        assert.equal(briefShown, 1);
        assert.equal(dbShown, 1);
      } else {
        assert.equal(briefShown, 0, `${query}: no situation`);
        assert.equal(dbShown, 0, `${query}: no database card`);
      }
      if (query === '?compact=1') {
        assert.equal(await page.getByRole('list', { name: 'Event log' }).isVisible(), false, 'the log is folded');
        await page.getByText('Event log', { exact: true }).click();
        await page.getByRole('list', { name: 'Event log' }).waitFor();
        await page.getByText('Event log', { exact: true }).click();
        await screenShot(page, 'embed-compact-900');
      }
      heights[query || 'default'] = await page.evaluate(() => document.documentElement.scrollHeight);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  }
  console.log(`embed heights after a run at 900 px wide: ${JSON.stringify(heights)}`);
  assert.ok(heights['?compact=1'] < heights.default - 800, `compact is much shorter (${JSON.stringify(heights)})`);
});
