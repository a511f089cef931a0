/**
 * The six scenarios that complete the lesson, in Chromium against the built site: each lab opens,
 * its starter runs to a violation naming the broken invariant and its solution holds, with no page
 * or console errors; the ledger of batch-credits shows the credits billed twice; screenshots of two
 * labs in light and dark land in tests/artifacts/e2e/.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, screenshot, urlOf, waitVerdict } from './helpers.mjs';

const READY_MS = 60_000;

/** Scenario, and text the starter's verdict must contain. */
const LABS = [
  ['replay-safety', /charged 2 times/],
  ['moving-answers', /CRM was told "deliverable"/],
  ['batch-credits', /billed again/],
  ['ambiguous-timeout-charge', /charged 3 times/],
  ['business-date-reminder', /2 reminders on 2026-01-05/],
  ['human-rerun', /charged 2 times/],
];

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const button = (page, name) => page.getByRole('button', { name, exact: true });

for (const [scenario, brokenText] of LABS) {
  test(`lab ${scenario}: the starter is caught, the solution holds`, { timeout: 180_000 }, async () => {
    const colorScheme = scenario === 'replay-safety' ? 'dark' : 'light';
    const { close, page, errors } = await openPage(browser, { colorScheme });
    try {
      await page.goto(urlOf(`/lab/${scenario}/`));
      await page.waitForFunction(() => {
        const b = document.querySelector('[data-action="run"]');
        return b && !b.disabled;
      }, undefined, { timeout: READY_MS });
      await button(page, 'Starter').click();
      await page.getByLabel('Speed').selectOption('instant');
      await button(page, 'Run').click();
      const broken = await waitVerdict(page, /Violated/);
      assert.match(broken, brokenText, broken);
      if (scenario === 'batch-credits' || scenario === 'replay-safety') {
        await screenshot(page, `lab-${scenario}-starter-${colorScheme}`);
      }

      await button(page, 'Solution').click();
      await button(page, 'Run').click();
      const held = await waitVerdict(page, /Held/);
      assert.match(held, /Held: every invariant kept/);
      assert.deepEqual(errors, [], 'no page or console errors');
    } finally {
      await close();
    }
  });
}
