/**
 * The lab on a phone (a touch-only device, 390 × 844): Monaco does not work with on-screen
 * keyboards, so the code is a plain text area. A learner types the fix there and sees it hold;
 * the problems a run finds are listed by line; the choice of editor can be switched and is kept.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeSerious, E2E_WAIT_MS, launchBrowser, openPage, PHONE, screenshot, urlOf, waitRunnable, waitVerdict } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** The page's scrolling width against the viewport's: a wider page scrolls sideways on a phone. */
const pageWidth = (page) => page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));

const keyboardHelpOpen = (page) => page.locator('details', { has: page.locator('summary', { hasText: /^Keyboard$/ }) }).evaluate((d) => d.open);

const button = (page, name) => page.getByRole('button', { name, exact: true });
const monacoRequests = (requests) => requests.filter((url) => /(?:ts|editor)\.worker\./.test(url));

test('lab on a phone: a plain text editor; the fix typed there holds; problems listed by line; the choice is kept', { timeout: 240_000 }, async () => {
  // A tab of its own: that Monaco was never requested must not rest on a renderer that has it cached.
  const { close, page, requests, errors } = await openPage(browser, { device: PHONE, fresh: true });
  try {
    await page.goto(urlOf('/lab/receipt-redelivery/'));
    await waitRunnable(page);
    const area = page.getByRole('textbox', { name: /^Your code/ });
    await area.waitFor({ timeout: E2E_WAIT_MS });
    assert.equal(await page.getByTestId('code-editor').getAttribute('data-editor-kind'), 'plain');
    assert.match(await page.getByTestId('editor-hint').innerText(), /Plain text editor/);
    // The keyboard shortcuts are folded away (a tablet's keyboard still has them a tap away).
    assert.equal(await keyboardHelpOpen(page), false);

    // The starter, as it is: the duplicate receipt.
    await page.getByLabel('Speed').selectOption('instant');
    await button(page, 'Run').click();
    assert.match(await waitVerdict(page, /Violated/), /2 receipts/);

    // The solution's text, read from its (read-only) view, typed into "Your code".
    await button(page, 'Solution').click();
    const solution = await page.getByRole('textbox', { name: /^Solution/ }).inputValue();
    assert.match(solution, /claim/);
    assert.equal(await page.getByRole('textbox', { name: /^Solution/ }).getAttribute('readonly'), '');
    await page.getByRole('button', { name: /^Your code/ }).click();
    await area.fill(solution);
    await button(page, 'Run').click();
    await waitVerdict(page, /Held/);
    // Nothing the run put on screen (the solution's operations table, its long keys) widens the page.
    assert.deepEqual(await pageWidth(page), { scrollWidth: 390, clientWidth: 390 });
    await screenshot(page, 'phone-lab-held');

    // A throw: listed under the code with its line; choosing it puts the caret there.
    const thrower = `import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  throw new Error('boom');
}
`;
    await area.fill(thrower);
    await button(page, 'Run').click();
    const problem = page.getByRole('button', { name: /^Line 4: Error: boom \(thrown in worker-1\)/ });
    await problem.waitFor({ timeout: E2E_WAIT_MS });
    await problem.click();
    const caret = await area.evaluate((el) => ({ focused: document.activeElement === el, line: el.value.slice(0, el.selectionStart).split('\n').length, rest: el.value.slice(el.selectionStart).split('\n')[0] }));
    assert.equal(caret.focused, true, 'the text area has the focus');
    assert.equal(caret.line, 4, 'the caret is on line 4');
    assert.equal(caret.rest, "new Error('boom');", 'at the column the error points at');
    await screenshot(page, 'phone-lab-problem');
    const violations = await axeSerious(page);
    assert.deepEqual(violations, [], 'axe: no serious or critical violations with the plain editor and its problems');

    // Monaco was never loaded (nor its workers), though its latest start time (4 s) has passed.
    await page.waitForTimeout(1_000);
    assert.deepEqual(monacoRequests(requests), []);
    assert.equal(await page.locator('.monaco-editor').count(), 0);

    // The learner may ask for the full editor anyway: Monaco loads, and the choice survives a reload.
    await page.getByTestId('editor-switch').click();
    await page.locator('[data-testid="code-editor"][data-editor-kind="full"][data-editor-ready="true"] .monaco-editor').waitFor({ timeout: 60_000 });
    await page.reload();
    await waitRunnable(page);
    await page.locator('[data-testid="code-editor"][data-editor-kind="full"]').waitFor({ timeout: E2E_WAIT_MS });
    await page.getByTestId('editor-switch').click();
    await page.getByRole('textbox', { name: /^Your code/ }).waitFor({ timeout: E2E_WAIT_MS });
    assert.equal(await page.getByRole('textbox', { name: /^Your code/ }).inputValue(), thrower, 'the code is kept across the switches');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test("on a phone a run's published messages wrap: their JSON bodies do not widen the lab", { timeout: 180_000 }, async () => {
  const { close, page, errors } = await openPage(browser, { device: PHONE });
  try {
    await page.goto(urlOf('/lab/business-date-reminder/'));
    await waitRunnable(page);
    await page.getByLabel('Speed').selectOption('instant');
    await button(page, 'Run').click();
    await waitVerdict(page, /Violated/);
    await page.getByText('Messages published').first().waitFor({ timeout: E2E_WAIT_MS });
    assert.deepEqual(await pageWidth(page), { scrollWidth: 390, clientWidth: 390 });
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('on a phone no page scrolls sideways: home, check, demo, try, embed', { timeout: 180_000 }, async () => {
  const { close, page, errors } = await openPage(browser, { device: PHONE });
  try {
    for (const path of ['/', '/check/', '/demo/receipt-redelivery/', '/try/', '/embed/receipt-redelivery/']) {
      await page.goto(urlOf(path));
      await page.waitForLoadState('networkidle');
      assert.deepEqual({ path, ...(await pageWidth(page)) }, { path, scrollWidth: 390, clientWidth: 390 });
    }
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('lab on a desktop: Monaco by default, and the plain editor on request, kept across a reload', { timeout: 120_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(E2E_WAIT_MS);
  try {
    const page = await context.newPage();
    await page.goto(urlOf('/lab/receipt-redelivery/'));
    await waitRunnable(page);
    await page.locator('[data-testid="code-editor"][data-editor-kind="full"][data-editor-ready="true"]').waitFor({ timeout: 60_000 });
    assert.equal(await keyboardHelpOpen(page), true);
    await page.getByTestId('editor-switch').click();
    await page.getByRole('textbox', { name: /^Your code/ }).waitFor({ timeout: E2E_WAIT_MS });
    // The button keeps the focus (its words change): the keyboard's place is not lost.
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'editor-switch');
    await page.reload();
    await waitRunnable(page);
    await page.locator('[data-testid="code-editor"][data-editor-kind="plain"]').waitFor({ timeout: E2E_WAIT_MS });
    assert.equal(await page.locator('.monaco-editor').count(), 0);
  } finally {
    await context.close();
  }
});
