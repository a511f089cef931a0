/**
 * Presenter mode driven by the keys a presenter and a clicker send, in real Chromium at
 * projector size: PageDown/→ step through the demonstration one narrated event at a time,
 * PageUp/← go back, Home/End jump, Space plays and pauses, R resets, and a fault button injects
 * live. Screenshots at 1920×1080 in light and dark.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeSerious, launchBrowser, openPage, setColorScheme, urlOf, screenShot } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const status = (page) => page.getByTestId('presenter-status').innerText();
const sentence = (page) => page.getByTestId('narration-sentence').innerText();

async function waitStatus(page, pattern, timeout = 30_000) {
  await page.waitForFunction(
    (source) => new RegExp(source).test(document.querySelector('[data-testid="presenter-status"]')?.textContent ?? ''),
    pattern.source,
    { timeout },
  );
  return status(page);
}

/** Presenter mode for `scenario` in a page of `width`×`height`, once it is Ready (the database booted). */
async function openPresenter(scenario, { width, height, colorScheme = 'light' }) {
  const opened = await openPage(browser, { colorScheme });
  try {
    await opened.page.setViewportSize({ width, height });
    await opened.page.goto(urlOf(`/demo/${scenario}/`));
    await waitStatus(opened.page, /^Ready$/, 60_000);
    // The page's HTML already says Ready; the keys work once Next is enabled (hydrated, database up).
    await opened.page.waitForFunction(() => document.querySelector('[data-action="step"]')?.disabled === false, undefined, { timeout: 90_000 });
    return opened;
  } catch (error) {
    await opened.close();
    throw error;
  }
}

// One load for light and dark: the walk is made once, and at each state where the two schemes were
// checked (what shows, axe, the screenshots) it is checked in both. The page follows the system's
// scheme without a reload (CSS, and Monaco's theme); every dark: class of the app is a colour.
test('presenter mode (light and dark): clicker and keyboard walk the demonstration', { timeout: 180_000 }, async () => {
  const { close, page, errors } = await openPresenter('receipt-redelivery', { width: 1920, height: 1080 });
  try {
    for (const colorScheme of ['dark', 'light']) {
      await setColorScheme(page, colorScheme);
      assert.equal(await page.locator('body > header').isVisible(), false, `no site navigation (${colorScheme})`);
      // On a tall screen the fault buttons say "now", as one line of text.
      assert.equal(await page.getByRole('button', { name: /Crash worker-1 now/ }).innerText(), '⚡ Crash worker-1 now', colorScheme);
    }
    const story = await sentence(page);
    assert.match(story, /worker-1/);
    await screenShot(page, 'demo-1920-start');

    // The clicker's "next" starts the run and holds it at its first event.
    await page.keyboard.press('PageDown');
    const first = await waitStatus(page, /^Event 1 of \d+$/);
    const total = Number(first.match(/of (\d+)/)[1]);
    assert.ok(total > 10, `a real trace (${total} events)`);
    const s1 = await sentence(page);
    await page.keyboard.press('ArrowRight');
    await waitStatus(page, /^Event 2 of/);
    await page.keyboard.press('PageDown');
    await waitStatus(page, /^Event 3 of/);
    const s3 = await sentence(page);
    assert.notEqual(s3, s1, 'each event has its own sentence');
    // A screen reader hears the new sentence on each step, not the previous one again, and the
    // event number once (from the status).
    const heard = await page.getByTestId('narration').ariaSnapshot();
    assert.ok(heard.includes(s3), `the narration reads the sentence: ${heard}`);
    assert.doesNotMatch(heard, /event 3 of/, 'the event number is the status line\'s to say');
    assert.equal(await page.getByTestId('narration').locator('p[aria-hidden="true"]').count(), 1, 'the previous sentence is shown, not read');
    await page.keyboard.press('PageUp');
    await waitStatus(page, /^Event 2 of/);
    await page.keyboard.press('ArrowLeft');
    await waitStatus(page, /^Event 1 of/);
    assert.equal(await sentence(page), s1);

    // End: the outcome (the last event that matters) and the verdict.
    await page.keyboard.press('End');
    await page.getByTestId('presenter-verdict').waitFor();
    const outcome = Number((await waitStatus(page, new RegExp(`^Event \\d+ of ${total}$`))).match(/^Event (\d+)/)[1]);
    assert.ok(outcome > 3 && outcome <= total, `End stops at the outcome (event ${outcome} of ${total})`);
    assert.match(await page.getByTestId('presenter-verdict').innerText(), /Violated/);
    await screenShot(page, 'demo-1920-verdict');
    for (const colorScheme of ['light', 'dark']) {
      await setColorScheme(page, colorScheme);
      const problems = await axeSerious(page);
      assert.deepEqual(problems, [], `${colorScheme}: ${JSON.stringify(problems, null, 2)}`);
    }
    await setColorScheme(page, 'light');
    await page.keyboard.press('Home');
    await waitStatus(page, /^Event 1 of/);
    await page.keyboard.press('End');
    await waitStatus(page, new RegExp(`^Event ${outcome} of`));

    // Space plays from the start and pauses.
    await page.keyboard.press('r');
    await waitStatus(page, /^Ready$/);
    assert.equal(await sentence(page), story, 'reset returns to the story');
    await page.keyboard.press(' ');
    await waitStatus(page, /^Event [2-9] of/);
    await page.keyboard.press(' ');
    const pausedAt = await status(page);
    await page.waitForTimeout(1000);
    assert.equal(await status(page), pausedAt, 'Space paused playback');
    await page.getByRole('button', { name: 'Play', exact: true }).waitFor();

    // Inject a fault live: the schedule reruns with it and the plan says so.
    await page.keyboard.press('Home');
    await waitStatus(page, /^Event 1 of/);
    await page.getByRole('button', { name: /Lose the next response/ }).click();
    await page.waitForFunction(() => /lose the response/.test(document.querySelector('[data-testid="presenter-plan"]')?.textContent ?? ''));
    // Focus does not stay on the fault button, so the clicker's next press is "next", not "inject again".
    assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), 'BUTTON');
    // Injected while held, the demonstration stays held at that event: the presenter talks first.
    await waitStatus(page, /^Event 1 of/);
    await page.waitForTimeout(1200);
    assert.match(await status(page), /^Event 1 of/, 'an injection while paused does not start playback');
    await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
    // The plan says where each fault landed, or that it never happened.
    assert.match(await page.getByTestId('presenter-plan').innerText(), /lose the response[^;]*\((event \d+|never happened in this run)\)/);
    await page.keyboard.press('PageDown');
    await waitStatus(page, /^Event 2 of/);
    await screenShot(page, 'demo-1920-injected');
    await setColorScheme(page, 'dark');
    await screenShot(page, 'demo-1920-dark');
    await setColorScheme(page, 'light');
    // R goes back to the demonstration as written: the injected fault goes with the run.
    await page.keyboard.press('r');
    await waitStatus(page, /^Ready$/);
    assert.doesNotMatch(await page.getByTestId('presenter-plan').innerText(), /lose the response/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('presenter mode on a 1280×720 projector: the controls stay on screen while the timeline shows', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPresenter('receipt-redelivery', { width: 1280, height: 720 });
  try {
    for (let i = 1; i <= 5; i++) {
      await page.keyboard.press('ArrowRight');
      await waitStatus(page, new RegExp(`^Event ${i} of`));
    }
    // Every control a presenter clicks is wholly inside the screen, without scrolling.
    const names = ['← Back', 'Play', 'Next →', 'Reset', /Crash worker-1 now/, /Crash worker-2 now/, /Lose the next response/, /Redeliver now/];
    for (const name of names) {
      const box = await page.getByRole('button', { name, exact: typeof name === 'string' }).boundingBox();
      assert.ok(box, `${name} is rendered`);
      assert.ok(box.y >= 0 && box.y + box.height <= 720, `${name} is on screen (y ${Math.round(box.y)}–${Math.round(box.y + box.height)} of 720)`);
    }
    // The four faults share one row: a second row of buttons would take the timeline's room.
    const tops = await page.getByRole('toolbar', { name: 'Faults' }).getByRole('button').evaluateAll((bs) => bs.map((b) => Math.round(b.getBoundingClientRect().top)));
    assert.equal(new Set(tops).size, 1, `the fault buttons are on one row (tops ${tops.join(', ')})`);
    // And the timeline still has room above them.
    const controls = await page.getByTestId('presenter-controls').boundingBox();
    const timeline = await page.locator('svg').first().boundingBox();
    assert.ok(timeline && timeline.y + 150 < controls.y, `at least 150 px of the timeline show above the controls (timeline from ${Math.round(timeline?.y)}, controls from ${Math.round(controls.y)})`);
    // The lane names are set for the back of the room, not the lab's 12 px.
    const laneName = page.getByTestId('timeline-lanes').getByText('worker-1', { exact: true });
    const px = await laneName.evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    assert.ok(px >= 16, `lane names are at least 16 px (got ${px})`);
    await screenShot(page, 'demo-1280x720');

    // A speed chosen with the mouse leaves the clicker working: PageDown moves the slide, not the speed.
    const speed = page.getByLabel('Play speed');
    await speed.click();
    await speed.selectOption('4x');
    await page.keyboard.press('Escape');
    await page.keyboard.press('PageDown');
    await waitStatus(page, /^Event 6 of/);
    assert.equal(await speed.inputValue(), '4x', 'PageDown did not change the speed');
    await speed.focus();
    await page.keyboard.press('PageDown');
    await waitStatus(page, /^Event 7 of/);
    assert.equal(await speed.inputValue(), '4x', 'nor with the menu focused');

    // At the end, with the verdict shown: "Play from the start" shows as "Play" (its name unchanged),
    // the faults stay on one row, and the timeline keeps its room above the controls.
    await page.keyboard.press('End');
    await page.getByTestId('presenter-verdict').waitFor();
    const again = page.getByRole('button', { name: 'Play from the start', exact: true });
    const againWidth = (await again.boundingBox())?.width ?? 0;
    assert.ok(againWidth > 0 && againWidth < 140, `only "Play" shows (the button is ${Math.round(againWidth)} px wide)`);
    const endTops = await page.getByRole('toolbar', { name: 'Faults' }).getByRole('button').evaluateAll((bs) => bs.map((b) => Math.round(b.getBoundingClientRect().top)));
    assert.equal(new Set(endTops).size, 1, `at the end the fault buttons are still on one row (tops ${endTops.join(', ')})`);
    const endControls = await page.getByTestId('presenter-controls').boundingBox();
    const endTimeline = await page.locator('svg').first().boundingBox();
    assert.ok(endTimeline && endTimeline.y + 150 < endControls.y, `at the end at least 150 px of the timeline show (timeline from ${Math.round(endTimeline?.y)}, controls from ${Math.round(endControls.y)})`);
    await screenShot(page, 'demo-1280x720-end');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('presenter mode at 1280×800: with the verdict shown, the whole timeline and its legend sit above the controls', { timeout: 120_000 }, async () => {
  // dual-write's verdict runs to three lines: the longest a one-invariant verdict gets.
  const { close, page, errors } = await openPresenter('dual-write', { width: 1280, height: 800 });
  try {
    await page.keyboard.press('End');
    await page.getByTestId('presenter-verdict').waitFor();
    await waitStatus(page, /^Event \d+ of \d+$/);
    const controls = await page.getByTestId('presenter-controls').boundingBox();
    const legend = await page.getByTestId('timeline-legend').boundingBox();
    assert.ok(legend && legend.y + legend.height <= controls.y + 1, `the legend ends above the controls without scrolling (${Math.round(legend?.y + legend?.height)} vs ${Math.round(controls.y)})`);
    await screenShot(page, 'demo-dual-write-1280x800-end');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('presenter mode at 200% zoom (640×400): the controls are not pinned over the narration', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPresenter('receipt-redelivery', { width: 640, height: 400 });
  try {
    for (let i = 1; i <= 5; i++) {
      await page.keyboard.press('PageDown');
      await waitStatus(page, new RegExp(`^Event ${i} of`));
    }
    const controls = page.getByTestId('presenter-controls');
    assert.equal(await controls.evaluate((el) => getComputedStyle(el).position), 'static', 'the controls flow with the page');
    await page.evaluate(() => window.scrollTo(0, 0));
    const sentence = await page.getByTestId('narration-sentence').boundingBox();
    const bar = await controls.boundingBox();
    assert.ok(sentence && sentence.y >= 0 && sentence.y < 400, `the narration is on screen (y ${Math.round(sentence?.y)})`);
    assert.ok(bar.y >= sentence.y + sentence.height, `nothing covers it (controls from y ${Math.round(bar.y)}, narration ends at ${Math.round(sentence.y + sentence.height)})`);
    await screenShot(page, 'demo-640x400');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('presenter mode on a 1280×720 projector: the longest title still leaves the header one row', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPresenter('business-date-reminder', { width: 1280, height: 720 });
  try {
    const middle = async (locator) => {
      const box = await locator.boundingBox();
      assert.ok(box, `${locator} is rendered`);
      return box.y + box.height / 2;
    };
    const title = await middle(page.getByRole('heading', { level: 1 }));
    for (const locator of [page.getByRole('link', { name: 'Exit presenter mode' }), page.getByTestId('presenter-status'), page.getByRole('button', { name: 'Starter' })]) {
      assert.ok(Math.abs((await middle(locator)) - title) < 12, `${locator} sits on the title's row`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('presenter mode: End from Ready jumps to the outcome; several broken invariants read one per line; ↓ scrolls the ledger into view', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPresenter('replay-safety', { width: 1280, height: 720 });
  try {
    await page.keyboard.press('End');
    const verdict = page.getByTestId('presenter-verdict');
    await verdict.waitFor();
    const end = await waitStatus(page, /^Event \d+ of \d+$/);
    const lines = (await verdict.innerText()).split('\n').map((l) => l.trim()).filter(Boolean);
    assert.match(lines[0], /^✗ Violated, \d+ invariants:$/, end);
    assert.ok(lines.length >= 3, `one line per broken invariant: ${JSON.stringify(lines)}`);
    for (const line of lines.slice(1)) assert.match(line, /^· /);
    // The clicker's keys navigate; ↓ scrolls the stage between the narration and the controls,
    // until the ledger sits wholly above the controls.
    for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => {
      const stage = document.querySelector('[data-testid="presenter-stage"]');
      return !!stage && stage.scrollTop + stage.clientHeight >= stage.scrollHeight - 2;
    });
    assert.equal(await status(page), end, 'scrolling did not move the demonstration');
    const controls = await page.getByTestId('presenter-controls').boundingBox();
    const ledger = await page.getByTestId('ledger').boundingBox();
    assert.ok(ledger && ledger.y + ledger.height <= controls.y + 1, `the ledger ends above the controls (${Math.round(ledger?.y + ledger?.height)} vs ${Math.round(controls.y)})`);
    await screenShot(page, 'demo-replay-safety-1280x720-end');
    // Home from Ready holds the run at its first event, as → does.
    await page.keyboard.press('r');
    await waitStatus(page, /^Ready$/);
    await page.keyboard.press('Home');
    await waitStatus(page, /^Event 1 of/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('presenter mode: clicker presses made while the demonstration is still being computed are kept', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPresenter('dual-write', { width: 1280, height: 720 });
  try {
    // Four quick presses from Ready: the first starts the run, the other three arrive while it is
    // computed (dual-write's first run takes the longest) and must not be lost.
    for (let i = 0; i < 4; i++) await page.keyboard.press('PageDown');
    const text = await waitStatus(page, /^Event \d+ of \d+$/);
    assert.match(text, /^Event 4 of \d+$/, `four presses, fourth event (got "${text}")`);
    await page.keyboard.press('PageUp');
    assert.match(await waitStatus(page, /^Event 3 of/), /^Event 3 of \d+$/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

// One load for light and dark, as the walk above: the button's place and the dialog's axe check and
// screenshot in both schemes, at the same moments.
test('presenter mode (light and dark): X explores both over the same 200 schedules, the starter breaks and the solution holds; Escape closes and the demonstration keeps its place', { timeout: 180_000 }, async () => {
  const { close, page, errors } = await openPresenter('receipt-redelivery', { width: 1280, height: 800 });
  try {
    for (let i = 1; i <= 3; i++) {
      await page.keyboard.press('ArrowRight');
      await waitStatus(page, new RegExp(`^Event ${i} of`));
    }
    // The button sits in the footer's plan line, on screen at 1280×800.
    for (const colorScheme of ['dark', 'light']) {
      await setColorScheme(page, colorScheme);
      const box = await page.getByRole('button', { name: /Explore both/ }).boundingBox();
      assert.ok(box && box.y + box.height <= 800 && box.x + box.width <= 1280, `the Explore both button is on screen (${colorScheme})`);
    }
    // Opened while the demonstration plays: it pauses there, and does not play on behind the dialog.
    assert.equal(await page.getByLabel('Play speed').inputValue(), '1x');
    await page.keyboard.press(' ');
    await page.keyboard.press('x');
    const dialog = page.getByRole('dialog', { name: /the same 200 schedules for both/ });
    await dialog.waitFor();
    const held = await status(page);
    await page.waitForTimeout(1500);
    assert.equal(await status(page), held, 'the demonstration waits behind the dialog');
    // Space, a presenter's habit, does not close it: the focus opens on the heading, not on Close.
    await page.keyboard.press(' ');
    assert.equal(await dialog.isVisible(), true, 'Space leaves the dialog open');
    // The summary waits for both rows.
    await page.waitForFunction(() => ['starter', 'solution'].every((v) => document.querySelector(`[data-testid="presenter-explore-${v}"]`)?.getAttribute('data-status') === 'done'), undefined, { timeout: 120_000 });
    const starter = await dialog.getByTestId('presenter-explore-starter').innerText();
    const solution = await dialog.getByTestId('presenter-explore-solution').innerText();
    assert.match(starter, /^Starter\s+(\d+) of 200 schedules broke an invariant/);
    assert.ok(Number(/(\d+) of 200/.exec(starter)[1]) > 0);
    assert.match(starter, /✗ At most one receipt per order: \d+ schedules?/);
    assert.match(solution, /^Solution\s+none of 200 schedules broke an invariant/);
    assert.match(await dialog.getByTestId('presenter-explore-summary').innerText(), /^The demonstration was one schedule: the starter breaks in \d+ of these, the solution in none\.$/);
    // Presenter keys do nothing while the dialog is open.
    await page.keyboard.press('ArrowRight');
    assert.equal(await status(page), held);
    for (const colorScheme of ['light', 'dark']) {
      await setColorScheme(page, colorScheme);
      assert.deepEqual(await axeSerious(page), [], colorScheme);
      await screenShot(page, `demo-explore-both-${colorScheme}`);
    }
    await setColorScheme(page, 'light');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    const at = Number(/^Event (\d+) of/.exec(held)[1]);
    await page.keyboard.press('ArrowRight');
    await waitStatus(page, new RegExp(`^Event ${at + 1} of`));
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

// One load for light and dark, as the walk above: the buttons' place and the dialog's axe check and
// screenshot in both schemes, at the same moments.
test('presenter mode (light and dark): F shows the fix as a line diff, only what changed marked; presenter keys rest until Escape', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPresenter('crash-after-send', { width: 1280, height: 720 });
  try {
    await page.keyboard.press('ArrowRight');
    const held = await waitStatus(page, /^Event 1 of/);
    // Both footer buttons are on screen at 1280×720.
    for (const colorScheme of ['dark', 'light']) {
      await setColorScheme(page, colorScheme);
      for (const name of [/^The fix \(F\)$/, /Explore both/]) {
        const box = await page.getByRole('button', { name }).boundingBox();
        assert.ok(box && box.y + box.height <= 720 && box.x + box.width <= 1280, `${name} is on screen (${colorScheme})`);
      }
    }
    await page.keyboard.press('f');
    const dialog = page.getByRole('dialog', { name: 'Sent, but not marked done — the fix' });
    await dialog.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'presenter-fix-title', 'the heading has the focus, not Close');
    assert.equal(await dialog.getByTestId('presenter-fix-summary').innerText(), 'From the starter to the solution: 4 lines added, 1 removed.');
    const diff = dialog.getByRole('region', { name: /^What the solution changes/ });
    assert.equal(await diff.locator('[data-kind="removed"]').count(), 1);
    assert.equal(await diff.locator('[data-kind="added"]').count(), 4);
    assert.match(await diff.locator('[data-kind="added"]').nth(2).innerText(), /\{ idempotencyKey: key \}/);
    // The order's fields move to a line of their own unchanged: only the comma after them is marked.
    assert.deepEqual(await diff.locator('[data-kind="added"] ins').allTextContents(), [',']);
    // The start of the handler is folded: four unchanged lines.
    assert.match(await diff.locator('[data-kind="fold"]').first().innerText(), /4 unchanged lines \(1–4\)/);
    // A screen reader hears which side a line is on.
    assert.match(await diff.locator('[data-kind="removed"] .sr-only').innerText(), /^removed from the starter, line 7:/);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press(' ');
    assert.equal(await status(page), held, 'presenter keys rest while the dialog is open');
    assert.equal(await dialog.isVisible(), true, 'Space leaves the dialog open');
    for (const colorScheme of ['light', 'dark']) {
      await setColorScheme(page, colorScheme);
      assert.deepEqual(await axeSerious(page), [], colorScheme);
      await screenShot(page, `demo-the-fix-${colorScheme}`);
    }
    await setColorScheme(page, 'light');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.keyboard.press('ArrowRight');
    await waitStatus(page, /^Event 2 of/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});
