/**
 * The library code a solution calls, in reach, in real Chromium: in lesson 1's lab with the
 * solution as the learner's code, F12 on `handleReceipt` opens lib/consumer.ts's real text
 * read-only at `handleMessage`; typing there changes nothing; Escape comes back to the learner's
 * code as it was, caret and undo history included. Peek (Alt+F12) shows the same source and
 * cannot edit it. The "Library code this uses" link opens the same reader, and with the plain
 * editor (and on a phone) the reader shows the whole file, line for line, the definition marked.
 * Screenshots land in tests/artifacts/e2e/.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { axeSerious, launchBrowser, openPage, urlOf, waitRunnable, E2E_WAIT_MS, PHONE, screenShot } from './helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAB = '/lab/receipt-redelivery/';
const CONSUMER = await readFile(path.join(root, 'lib/consumer.ts'), 'utf8');
const SOLUTION = await readFile(path.join(root, 'simulations/lessons/receipt-redelivery/solution.ts'), 'utf8');
/** 1-based line of `export async function handleMessage(` in lib/consumer.ts. */
const HANDLE_LINE = CONSUMER.split('\n').findIndex((l) => l.startsWith('export async function handleMessage(')) + 1;

let browser;
before(async () => {
  assert.ok(HANDLE_LINE > 0, 'lib/consumer.ts defines handleMessage');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** The lab with the solution as "Your code" (saved as a paste would), Monaco or the plain editor ready. */
async function openWithSolution({ device, plain = false, colorScheme = 'light' } = {}) {
  const opened = await openPage(browser, { colorScheme, device: device ?? { viewport: { width: 1366, height: 768 } } });
  const { page } = opened;
  if (plain) await page.addInitScript(() => window.localStorage.setItem('eo:editor', 'plain'));
  await page.goto(urlOf(LAB));
  await waitRunnable(page);
  await page.waitForFunction(() => typeof window.__eoLab?.setCode === 'function');
  await page.evaluate((code) => window.__eoLab.setCode(code), SOLUTION);
  await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor();
  return opened;
}

/** Assert that `shown` (the lines an editor renders) is a run of consecutive lines of lib/consumer.ts, as it is on disk. */
function assertConsumerLines(shown, what) {
  const lines = CONSUMER.split('\n');
  const start = lines.indexOf(shown[0]);
  assert.ok(shown.length > 3 && start >= 0, `${what}: the first rendered line is lib/consumer.ts's: ${shown[0]}`);
  assert.deepEqual(shown, lines.slice(start, start + shown.length), `${what} shows lib/consumer.ts as it is`);
}

/**
 * Press `key` until `shown` is in `state`: Go to Definition does nothing until the editor's
 * TypeScript service has started (its worker loads after the editor), and no state on the page
 * says when.
 */
async function pressUntil(page, key, shown, state = 'visible') {
  const deadline = Date.now() + E2E_WAIT_MS;
  for (;;) {
    await page.keyboard.press(key);
    try {
      await shown.waitFor({ state, timeout: 5_000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

/** Whether `shown` is a run of more than three consecutive lines of lib/consumer.ts. */
function isConsumerRun(shown) {
  const lines = CONSUMER.split('\n');
  const start = lines.indexOf(shown[0]);
  return shown.length > 3 && start >= 0 && shown.every((line, k) => line === lines[start + k]);
}

/**
 * Assert that `editor` shows lib/consumer.ts as it is, once Monaco's rendering has settled: in the
 * middle of a re-render (after a key, the "read-only" notice) it briefly holds old and new line
 * elements together, which a loaded machine caught once as every line doubled.
 */
async function assertShowsConsumer(editor, what) {
  const deadline = Date.now() + E2E_WAIT_MS;
  let shown = await renderedLines(editor);
  while (!isConsumerRun(shown) && Date.now() < deadline) {
    await editor.page().waitForTimeout(100);
    shown = await renderedLines(editor);
  }
  assertConsumerLines(shown, what);
  return shown;
}

/** The text of the lines Monaco renders in `editor`, top to bottom. */
function renderedLines(editor) {
  return editor.evaluate((el) =>
    [...el.querySelectorAll('.view-line')]
      .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
      .map((l) => l.textContent.replace(/\u00a0/g, ' ')),
  );
}

test('F12 on handleReceipt opens lib/consumer.ts read-only at handleMessage; typing there changes nothing; Escape returns to the code as it was', { timeout: 300_000 }, async () => {
  const { close, page, errors } = await openWithSolution();
  try {
    const editor = page.getByTestId('code-editor').locator('.monaco-editor');
    await editor.locator('.view-lines').getByText('handleReceipt(env.db', { exact: false }).waitFor();
    // An edit of the learner's own, to find again after the trip: their text and their undo history.
    await editor.locator('.view-lines').click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('// mine');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.__eoLab.getCode().startsWith('// mine\n'));
    const before = await page.evaluate(() => window.__eoLab.getCode());

    // The caret on the call of handleReceipt, then Go to Definition by keyboard.
    const call = editor.locator('.view-line', { hasText: 'return handleReceipt(' }).getByText('handleReceipt', { exact: true });
    await call.click();
    const view = page.getByTestId('library-view');
    await pressUntil(page, 'F12', view);
    assert.equal(await view.getAttribute('data-library-file'), 'lib/consumer.ts');
    assert.equal(Number(await view.getAttribute('data-library-line')), HANDLE_LINE, 'at the line of handleMessage');
    const header = await view.locator('p').first().innerText();
    assert.match(header, /Library code/);
    assert.match(header, /lib\/consumer\.ts/);
    assert.match(header, /read-only/);

    const reader = view.getByTestId('library-source-editor');
    await reader.locator('.view-line').first().waitFor();
    await page.waitForFunction(() => document.activeElement?.closest('[data-testid="library-source-editor"]'));
    const shown = await assertShowsConsumer(reader, 'the reader');
    assert.ok(shown.includes(CONSUMER.split('\n')[HANDLE_LINE - 1]), 'the reader shows the real line of handleMessage');
    await screenShot(page, 'library-code-1366x768');
    assert.deepEqual(await axeSerious(page), [], 'no serious axe violations with the reader open');

    // Typing into the library changes nothing.
    await page.keyboard.type('XYZ');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await assertShowsConsumer(reader, 'after typing, the reader');

    await page.keyboard.press('Escape');
    await view.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.closest('[data-testid="code-editor"] .monaco-editor'));
    assert.equal(await page.evaluate(() => window.__eoLab.getCode()), before, "the learner's code is as it was");
    // Their undo history too: Ctrl+Z takes back their own last edit.
    const code = () => page.evaluate(() => window.__eoLab.getCode());
    for (let presses = 0; presses < 4 && (await code()) !== SOLUTION; presses++) {
      const was = await code();
      await page.keyboard.press('Control+z');
      await page.waitForFunction((text) => window.__eoLab.getCode() !== text, was);
    }
    assert.equal(await code(), SOLUTION);

    // Peek (Alt+F12) shows the real source in place, and it cannot be edited either.
    await call.click();
    const peek = editor.locator('.peekview-widget');
    await pressUntil(page, 'Alt+F12', peek);
    const preview = peek.locator('.preview .monaco-editor');
    await preview.locator('.view-line', { hasText: 'export async function handleMessage(' }).waitFor();
    assert.match(await peek.innerText(), /consumer\.ts/);
    await preview.locator('.view-line', { hasText: 'export async function handleMessage(' }).click();
    await assertShowsConsumer(preview, 'the peek');
    await page.keyboard.type('XYZ');
    await page.keyboard.press('Enter');
    await assertShowsConsumer(preview, 'after typing, the peek');
    // The first Escape may only close the "read-only" notice the typing raised.
    await pressUntil(page, 'Escape', peek, 'detached');
    assert.equal(await page.evaluate(() => window.__eoLab.getCode()), SOLUTION, "the learner's code is untouched by the peek");

    // The link opens the same reader; its Back button returns the focus to the link.
    // Read aloud as "handleReceipt in lib/consumer.ts"; shown as "handleReceipt → lib/consumer.ts".
    const link = page.getByTestId('library-links').getByRole('button', { name: 'handleReceipt in lib/consumer.ts' });
    assert.equal(await link.evaluate((el) => [...el.childNodes].filter((n) => !n.classList?.contains('sr-only')).map((n) => n.textContent).join('')), 'handleReceipt → lib/consumer.ts');
    await link.focus();
    await page.keyboard.press('Enter');
    await view.waitFor();
    assert.equal(Number(await view.getAttribute('data-library-line')), HANDLE_LINE);
    await view.getByTestId('library-back').click();
    await view.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-library-link')), 'handleReceipt', 'the focus is back on the link');

    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});

for (const [name, device, colorScheme] of [
  ['the plain editor at 1366×768', { viewport: { width: 1366, height: 768 } }, 'light'],
  ['a phone, dark', PHONE, 'dark'],
]) {
  test(`with ${name}, the link opens lib/consumer.ts whole and read-only, the definition marked`, { timeout: 240_000 }, async () => {
    const { close, page, errors } = await openWithSolution({ device, plain: true, colorScheme });
    try {
      await page.getByTestId('plain-editor').waitFor();
      const link = page.getByTestId('library-links').getByRole('button', { name: /handleReceipt/ });
      await link.click();
      const view = page.getByTestId('library-view');
      const plain = view.getByTestId('library-plain');
      await plain.waitFor();
      assert.equal(await view.getAttribute('data-library-file'), 'lib/consumer.ts');
      const lines = await plain.locator('[data-line]').evaluateAll((els) => els.map((el) => el.textContent.replace(/^\d+/, '')));
      assert.equal(lines.join('\n'), CONSUMER.replace(/\n$/, ''), 'the reader shows lib/consumer.ts line for line');
      const marked = plain.locator(`[data-line="${HANDLE_LINE}"]`);
      assert.match(await marked.getAttribute('class'), /bg-amber/, 'the line of handleMessage is marked');
      assert.ok(await marked.isVisible(), 'and scrolled into view');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'library-plain', 'the reader has the focus');
      await screenShot(page, `library-code-plain-${device.isMobile ? 'phone' : '1366x768'}`);
      assert.deepEqual(await axeSerious(page), [], 'no serious axe violations with the reader open');
      await page.keyboard.press('Escape');
      await view.waitFor({ state: 'detached' });
      assert.equal(await page.evaluate(() => window.__eoLab.getCode()), SOLUTION);
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-library-link')), 'handleReceipt');
      assert.deepEqual(errors, [], 'no page or console errors');
    } finally {
      await close();
    }
  });
}
