/**
 * The story the timeline tells, in real Chromium: after a run of lease-expiry's solution, choosing
 * an event shows the queue's message in flight with its visibility timeout's countdown and the
 * claim's lease left or expired, with the values the run really had; the event's message is drawn
 * travelling from the sender's lane to the receiver's (caught mid-way with the page's animations
 * paused), and drawn in place under prefers-reduced-motion. The same in presenter mode at
 * 1280×720, stepping with the clicker's key. Axe clean, light and dark; screenshots of each.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LESSON_CODE } from '../../simulations/lessons/code.generated.ts';
import { axeSerious, launchBrowser, nextFrames, openPage, setColorScheme, urlOf, waitRunnable, waitVerdict, E2E_WAIT_MS, screenShot } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const TIMELINE = '[role="group"][aria-label^="Timeline"]';
const STRIP = '[data-testid="queue-and-leases"]';
const TOKEN = '[data-testid="travelling-message"]';

/** lease-expiry's solution run to its verdict in the lab at `width`×`height`. */
async function labRun({ width, height, colorScheme = 'light' }) {
  const opened = await openPage(browser, { colorScheme, device: { viewport: { width, height } } });
  const { page } = opened;
  try {
    await page.goto(urlOf('/lab/lease-expiry/'));
    await waitRunnable(page);
    await page.waitForFunction(() => !!window.__eoLab);
    await page.evaluate((code) => window.__eoLab.setCode(code), LESSON_CODE['lease-expiry'].solution);
    await page.getByLabel('Speed').selectOption('instant');
    await page.locator('[data-action="run"]').click();
    await waitVerdict(page, /Held/);
    await page.locator(TIMELINE).waitFor();
    return opened;
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** Select event `n` (1-based, as the page counts) by its mark, and wait until the strip speaks of it. */
async function selectEvent(page, n) {
  await page.locator(`${TIMELINE} [role="button"][aria-label^="Event ${n},"]`).click();
  await page.locator(`${STRIP}[aria-label^="Queue and leases after event ${n},"]`).waitFor();
}

const text = (page, selector) => page.locator(selector).innerText();

/** The token's vertical centre and the centres of the lanes it travels between, in page pixels. */
async function tokenGeometry(page) {
  return page.evaluate(
    ({ timeline, token }) => {
      const el = document.querySelector(token);
      const lanes = [...document.querySelectorAll(`${timeline} [data-testid="timeline-lanes"] > div`)];
      const centre = (r) => r.top + r.height / 2;
      const laneY = (name) => {
        const lane = lanes.find((l) => l.textContent === name);
        return lane ? centre(lane.getBoundingClientRect()) : NaN;
      };
      return {
        y: centre(el.querySelector('rect').getBoundingClientRect()),
        fromY: laneY(el.dataset.from),
        toY: laneY(el.dataset.to),
        running: el.getAnimations().filter((a) => a.playState === 'running' || a.playState === 'paused').length,
        animated: el.dataset.animated,
      };
    },
    { timeline: TIMELINE, token: TOKEN },
  );
}

// One run, then the same page in dark with reduced motion (which the token reads each time it is
// drawn, and the colours follow without a reload): no second boot and run of the lab.
test('lab at 1366×768: at a chosen event the queue’s message, its visibility countdown and the claim’s lease read as the run had them; the message travels from lane to lane; then in dark with reduced motion the token is drawn where it arrives, without motion; axe clean in both', { timeout: 300_000 }, async () => {
  const { context, close, page, errors } = await labRun({ width: 1366, height: 768 });
  try {
    // Event 8: the first redelivery of m1, to worker-2, 30 s in; worker-1's claim (60 s) has 30 s left.
    await selectEvent(page, 8);
    assert.equal(await page.locator(`${STRIP} [data-message="m1"]`).getAttribute('data-state'), 'in-flight');
    assert.match(await text(page, `${STRIP} [data-message="m1"]`), /^m1\s*in flight to worker-2 · visible again in 30\.0 s$/);
    assert.match(await text(page, `${STRIP} [data-lease]`), /running · 30\.0 s left/);
    assert.equal(await page.locator(`${STRIP} [data-lease]`).getAttribute('data-lease'), 'held');
    const token = page.locator(TOKEN);
    assert.deepEqual(
      await token.evaluate((el) => ({ from: el.dataset.from, to: el.dataset.to, label: el.dataset.label, event: el.dataset.event })),
      { from: 'queue', to: 'worker-2', label: 'm1', event: '7' },
    );
    await page.locator(`${TIMELINE} [data-testid="travelling-message"][data-animated]`).waitFor({ state: 'attached' });
    assert.equal(await token.getAttribute('data-animated'), 'true');
    await screenShot(page, 'story-lab-1366x768-event-8');

    // Event 13, 60 s in: the lease ends at this very instant and still holds; the message is with worker-1 again.
    await selectEvent(page, 13);
    assert.match(await text(page, `${STRIP} [data-lease]`), /running · 0\.0 s left/);
    assert.match(await text(page, `${STRIP} [data-message="m1"]`), /in flight to worker-1 · visible again in 30\.0 s/);

    // Event 18, 90 s in: the lease expired 30 s ago, so worker-1 may take the claim over.
    await selectEvent(page, 18);
    assert.equal(await page.locator(`${STRIP} [data-lease]`).getAttribute('data-lease'), 'expired');
    assert.match(await text(page, `${STRIP} [data-lease]`), /running · expired 30\.0 s ago/);

    // Caught mid-way: with the page's animations paused, the ack's token sits at worker-1's lane,
    // where it left; played on, it ends beside the queue's lane.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Animation.enable');
    await cdp.send('Animation.setPlaybackRate', { playbackRate: 0 });
    const ackEvent = await page.locator(`${TIMELINE} [role="button"][data-kind="queue"][aria-label*="→ queue: ack m1"]`).getAttribute('aria-label');
    const ackN = Number(ackEvent.match(/^Event (\d+),/)[1]);
    await selectEvent(page, ackN);
    await page.locator(`${TOKEN}[data-label="ack m1"][data-animated="true"]`).waitFor({ state: 'attached' });
    const start = await tokenGeometry(page);
    assert.equal(start.running, 1, 'the token’s motion is running (paused by the test)');
    assert.ok(Math.abs(start.y - start.fromY) < 4, `paused at its start, the token is on the sender’s lane (token ${start.y}, worker-1 ${start.fromY})`);
    await cdp.send('Animation.setPlaybackRate', { playbackRate: 1 });
    await cdp.detach();
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAnimations().length === 0, TOKEN, { timeout: E2E_WAIT_MS });
    const end = await tokenGeometry(page);
    assert.ok(end.toY < end.fromY, 'the queue’s lane is above worker-1’s');
    assert.ok(end.y < start.y && Math.abs(end.y - end.toY) < 30, `played, the token ends beside the queue’s lane (token ${end.y}, queue ${end.toY})`);
    assert.match(await text(page, `${STRIP} [data-message="m1"]`), /acked by worker-1/);
    await screenShot(page, 'story-lab-1366x768-acked');
    assert.deepEqual(await axeSerious(page), [], 'light');

    // Dark and reduced motion: the token is drawn where it arrives, without motion.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await setColorScheme(page, 'dark');
    await selectEvent(page, 8);
    // Event 8's token (the ack's token was drawn here a moment ago).
    await page.locator(`${TOKEN}[data-event="7"][data-animated]`).waitFor({ state: 'attached' });
    const still = await tokenGeometry(page);
    assert.equal(still.animated, 'false');
    assert.equal(still.running, 0, 'no motion');
    assert.ok(still.y > still.fromY && Math.abs(still.y - still.toY) < 30, `drawn beside worker-2’s lane, where it arrives (token ${still.y}, worker-2 ${still.toY})`);
    await screenShot(page, 'story-lab-1366x768-dark');
    assert.deepEqual(await axeSerious(page), [], 'dark');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

// One load, resized from size to size (and at 1280×720 switched to dark at the same moment):
// presenter mode's layout is CSS media queries, a media hook that follows their change events and
// a timeline that measures itself with a ResizeObserver; its colours are CSS. At each size R takes
// the demonstration back to Ready, where a fresh load starts, and the walk is made again.
test('presenter at 1280×720 (light and dark), 1024×768 and 1920×1080: stepping to the redelivery shows m1 in flight to worker-2 with its countdown, the lease left, and the message travelling; the strip above the controls; axe clean', { timeout: 300_000 }, async () => {
  const { close, page, errors } = await openPage(browser, { device: { viewport: { width: 1280, height: 720 } } });
  try {
    await page.goto(urlOf('/demo/lease-expiry/'));
    for (const [width, height] of [
      [1280, 720],
      [1024, 768],
      [1920, 1080],
    ]) {
      if (width !== 1280) {
        await page.setViewportSize({ width, height });
        await page.keyboard.press('r');
        await page.waitForFunction(() => document.querySelector('[data-testid="presenter-status"]')?.textContent === 'Ready', undefined, { timeout: E2E_WAIT_MS });
        await nextFrames(page);
      }
      await page.waitForFunction(() => document.querySelector('[data-action="step"]')?.disabled === false, undefined, { timeout: E2E_WAIT_MS });
      await page.getByRole('group', { name: 'Which code runs' }).getByRole('button', { name: 'Solution' }).click();
      for (let i = 1; i <= 8; i++) {
        await page.keyboard.press('PageDown');
        await page.waitForFunction((n) => new RegExp(`^Event ${n} of`).test(document.querySelector('[data-testid="presenter-status"]')?.textContent ?? ''), i, { timeout: E2E_WAIT_MS });
      }
      for (const colorScheme of width === 1280 ? ['light', 'dark'] : ['light']) {
        await setColorScheme(page, colorScheme);
        const at = `${width}×${height}, ${colorScheme}`;
        await page.locator(`${STRIP}[aria-label^="Queue and leases after event 8,"]`).waitFor();
        assert.match(await text(page, `${STRIP} [data-message="m1"]`), /in flight to worker-2 · visible again in 30\.0 s/, at);
        assert.match(await text(page, `${STRIP} [data-lease]`), /running · 30\.0 s left/, at);
        assert.equal(await page.locator(TOKEN).getAttribute('data-to'), 'worker-2', at);
        // The strip is on screen with the timeline, above the presenter's controls.
        const strip = await page.locator(STRIP).boundingBox();
        const controls = await page.getByTestId('presenter-controls').boundingBox();
        assert.ok(strip && controls && strip.y + strip.height <= controls.y + 0.5, `${at}: the strip ends above the controls (strip ${Math.round(strip?.y)}–${Math.round((strip?.y ?? 0) + (strip?.height ?? 0))}, controls from ${Math.round(controls?.y)})`);
        await screenShot(page, `story-presenter-${width}x${height}-${colorScheme}`);
        assert.deepEqual(await axeSerious(page), [], at);
      }
      await setColorScheme(page, 'light');
    }
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});
