/**
 * The hint ladder as a learner climbs it, in real Chromium against the built site: the first hint
 * (where to look), then — after exploring a wrong fix from the judge's exam, a claim with a finite
 * lease but no takeover — the hint for how that code broke, whose button replays the very
 * counterexample the exploration found; the rungs opened are kept in the learner's progress and
 * come back after a reload; the last rung puts the Solution in the editor.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import path from 'node:path';
import { ARTIFACTS, launchBrowser, openPage, screenshot, urlOf, waitRunnable, waitVerdict } from './helpers.mjs';

const WRONG_FIX = new URL('../judge/lease-expiry/finite-lease-no-takeover.ts', import.meta.url);

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const button = (page, name) => page.getByRole('button', { name, exact: true });
const hintsStored = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('eo:progress') ?? '{}').scenarios?.['lease-expiry']?.hints ?? []);

test('hint ladder: a first hint, the hint for how an explored wrong fix broke, its replay of that counterexample, then the solution', { timeout: 360_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    await page.goto(urlOf('/lab/lease-expiry/'));
    await waitRunnable(page);
    const ladder = page.getByTestId('hint-ladder');

    // The first rung, on request only.
    assert.equal(await ladder.getByTestId('hint-nudge').count(), 0, 'no hint before it is asked for');
    await ladder.getByTestId('hint-open-nudge').click();
    await ladder.getByTestId('hint-nudge').waitFor();
    assert.match(await ladder.getByTestId('hint-nudge').innerText(), /lease_until/);
    assert.match(await ladder.getByTestId('hint-targeted').innerText(), /Run or Explore your code/);

    // A wrong fix from the judge's exam, explored.
    const code = await readFile(WRONG_FIX, 'utf8');
    await page.waitForFunction(() => !!window.__eoLab);
    await page.evaluate((t) => window.__eoLab.setCode(t), code);
    await button(page, 'Explore').click();
    const open = ladder.getByTestId('hint-open-targeted');
    await open.waitFor({ timeout: 240_000 });
    const targeted = ladder.getByTestId('hint-targeted');
    assert.equal(await targeted.getAttribute('data-invariant'), 'every-order-receipted');
    assert.equal(await targeted.getAttribute('data-hint'), 'every-order-receipted/crash-db', 'the counterexample crashes a worker right after its claim');
    await open.click();
    await targeted.getByTestId('hint-replay').waitFor();
    assert.match(await targeted.innerText(), /Your code broke “Every order gets its receipt” in the exploration\. Your claim never lets go: the worker crashed right after its INSERT/);

    // The button replays the exploration's counterexample: the same plan the explorer shows.
    const explorer = await page.getByRole('region', { name: 'Explorer' }).innerText();
    await page.getByLabel('Speed').selectOption('instant');
    await targeted.getByTestId('hint-replay').click();
    const verdict = await waitVerdict(page, /Violated/);
    assert.match(verdict, /Every order gets its receipt/);
    const cx = /seed (\d+), \d+ faults?: (.+), \d+ scheduler steps/.exec(explorer);
    assert.ok(cx, `the explorer names its counterexample: ${explorer}`);
    const plan = (await page.getByTestId('fault-plan').locator('li > span:not([aria-hidden])').allInnerTexts()).map((t) => t.replace(/ \(event \d+\)/, ''));
    assert.match(plan.join('; '), /crash worker-\d right after its first db step/);
    assert.equal(plan.join('; '), cx[2], 'the replayed plan is the counterexample\'s');
    assert.equal(await page.getByLabel('Seed', { exact: true }).inputValue(), cx[1], 'on the counterexample\'s seed');
    await screenshot(page, 'hint-ladder-replayed');
    await ladder.screenshot({ path: path.join(ARTIFACTS, 'hint-ladder.png') });

    // What was opened is kept with the progress and comes back.
    assert.deepEqual(await hintsStored(page), ['nudge', 'every-order-receipted/crash-db']);
    await page.reload();
    await waitRunnable(page);
    await ladder.getByTestId('hint-nudge').waitFor();

    // The last rung: the solution, on request.
    await ladder.getByTestId('hint-solution').click();
    await page.locator('button[aria-pressed="true"]', { hasText: /^Solution$/ }).waitFor();
    assert.deepEqual(await hintsStored(page), ['nudge', 'every-order-receipted/crash-db', 'solution']);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});
