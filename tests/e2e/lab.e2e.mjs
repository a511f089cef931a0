import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SCENARIO_CATALOG } from '../../simulations/lessons/catalog.ts';
import { launchBrowser, openPage, screenshot, setColorScheme, urlOf, waitForDbReady, E2E_WAIT_MS } from './helpers.mjs';

const LAB = '/lab/receipt-redelivery/';
const scenario = SCENARIO_CATALOG.find((s) => s.id === 'receipt-redelivery');

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test('the lab page HTML already holds the code as a static <pre>', { timeout: E2E_WAIT_MS }, async () => {
  const html = await (await fetch(urlOf(LAB))).text();
  assert.match(html, /data-testid="code-fallback"/, 'the fallback is in the static HTML');
  assert.match(html, /await env\.email\.send\(/, 'the fallback holds the starter handler');
  // The Tab hint comes before the editor: a keyboard user reads it before Tab reaches the editor
  // (where Tab indents, and would change the code of someone tabbing through the page).
  const hint = html.indexOf('Inside the editor, Tab indents');
  assert.ok(hint > 0 && hint < html.indexOf('data-testid="code-fallback"'), 'the Tab hint precedes the editor');
  // Monaco's slot is inert until the editor is ready: its textarea, present a moment before, takes no
  // focus behind the fallback (aria-hidden alone left it focusable: axe's aria-hidden-focus).
  assert.match(html, /<div class="h-full opacity-0" inert="">/, 'the editor’s slot is inert while it loads');
  assert.doesNotMatch(html, /class="h-full opacity-0" aria-hidden/, 'not hidden with aria-hidden over focusable content');

  // Without any script the code is visible: nothing waits for Monaco to be readable.
  const { close, page } = await openPage(browser, { javaScriptEnabled: false });
  try {
    await page.goto(urlOf(LAB));
    const fallback = page.getByTestId('code-fallback');
    assert.ok(await fallback.isVisible(), 'fallback visible without JavaScript');
    assert.match(await fallback.innerText(), /await env\.email\.send\(\{ to: msg\.customer, orderId: msg\.orderId \}\);/);
    // The brief and the demonstration story are in the static HTML too.
    assert.match(await page.getByTestId('scenario-brief').innerText(), /acknowledge/);
    assert.equal(await page.getByTestId('scenario-title').innerText(), scenario.title);
    await screenshot(page, 'lab-no-js');
  } finally {
    await close();
  }
});

test('the lab shows the scenario, then Monaco mounts with the handler', { timeout: 90_000 }, async (t) => {
  const { close, page, errors } = await openPage(browser);
  try {
    await page.goto(urlOf(LAB), { waitUntil: 'domcontentloaded' });
    assert.equal(await page.getByTestId('scenario-title').innerText(), scenario.title);
    assert.equal(await page.getByTestId('scenario-concept').innerText(), scenario.concept);
    assert.equal(await page.getByTestId('scenario-summary').innerText(), scenario.summary);

    const editor = page.getByTestId('code-editor');
    assert.equal(await editor.getAttribute('aria-label'), 'Handler code editor');
    // Before Monaco has mounted the code is on screen as the static fallback.
    if ((await editor.getAttribute('data-editor-ready')) !== 'true') {
      assert.match(await page.getByTestId('code-fallback').innerText(), /handleMessage/);
    }

    const started = Date.now();
    await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor({ timeout: E2E_WAIT_MS });
    t.diagnostic(`Monaco mounted ${Date.now() - started} ms after DOMContentLoaded`);
    const monaco = editor.locator('.monaco-editor');
    assert.equal(await monaco.count(), 1, 'one Monaco editor in the container');
    await monaco.locator('.view-lines').getByText('handleMessage', { exact: false }).first().waitFor({ timeout: E2E_WAIT_MS });
    assert.match(await monaco.locator('.view-lines').innerText(), /handleMessage/);
    assert.equal(await page.getByTestId('code-fallback').count(), 0, 'the fallback is gone');

    // Edits are kept in state: typing marks the code edited, and restoring brings the starter back.
    await monaco.locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type("const check: number = 'text';");
    await page.getByRole('button', { name: 'Reset to starter' }).waitFor();
    // Monaco paints its view lines asynchronously (with non-breaking spaces): wait for the paint.
    const viewHas = (text, present) =>
      page.waitForFunction(
        ([t, p]) => {
          const lines = document.querySelector('[data-testid="code-editor"] .monaco-editor .view-lines');
          return !!lines && lines.textContent.replace(/\s+/g, ' ').includes(t) === p;
        },
        [text, present],
        { timeout: E2E_WAIT_MS },
      );
    await viewHas("const check: number = 'text';", true);
    // The TypeScript worker (served locally) checks the code: the type error gets a red squiggle.
    await editor.locator('.squiggly-error').first().waitFor({ timeout: E2E_WAIT_MS });
    await page.getByRole('button', { name: 'Reset to starter' }).click();
    await page.getByRole('button', { name: 'Reset to starter' }).waitFor({ state: 'detached' });
    await viewHas('const check', false);
    await viewHas('env.email.send(', true);
    // Every variant of every scenario type-checks against the learner typings: no red squiggles.
    const noSquiggles = () =>
      page.waitForFunction(
        () => document.querySelectorAll('[data-testid="code-editor"] .squiggly-error').length === 0,
        undefined,
        { timeout: E2E_WAIT_MS },
      );
    await noSquiggles();
    await page.getByRole('button', { name: 'Solution', exact: true }).click();
    await viewHas('handleReceipt', true);
    await page.waitForTimeout(1500);
    await noSquiggles();

    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});

// One load: the panel's rows are shot in light, then in dark (the page follows the system's scheme
// without a reload).
// Longer than any one wait inside it, so a step that never ends fails with its own message.
test('the query panel runs real SQL and shows errors; its rows shot in light and dark', { timeout: 3 * E2E_WAIT_MS }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    await page.goto(urlOf(LAB));
    await page.locator('#main').getByText('Query the database yourself').click();
    const sql = page.getByLabel('SQL', { exact: true });
    assert.equal(await sql.inputValue(), 'SELECT * FROM operations');
    await waitForDbReady(page, 30_000);
    const panel = page.getByTestId('query-panel');
    const run = panel.getByRole('button', { name: 'Run query' });

    // The prefilled query: the lesson's table exists and is empty.
    await run.click();
    const result = panel.getByTestId('query-result');
    await result.getByText('No rows.').waitFor();
    const headers = await result.getByRole('columnheader').allInnerTexts();
    assert.deepEqual(headers, ['op_key', 'state', 'lease_until', 'result']);

    await sql.fill('SELECT 1 + 1 AS two');
    await run.click();
    await result.getByRole('columnheader', { name: 'two' }).waitFor();
    assert.deepEqual(await result.getByRole('cell').allInnerTexts(), ['2']);

    // Keyboard only: Ctrl+Enter in the box runs it; the error comes from PostgreSQL.
    await sql.fill('SELEC 1');
    await sql.press('Control+Enter');
    const error = panel.getByRole('alert');
    await error.waitFor();
    const text = await error.innerText();
    assert.match(text, /syntax error at or near "SELEC"/, text);
    assert.match(text, /42601/, 'SQLSTATE shown');
    assert.match(text, /LINE 1: SELEC 1\n\s*\^/, 'caret under the error position');
    await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor({ timeout: E2E_WAIT_MS });

    // A write, then the rows it made, so the screenshot shows a real table.
    await sql.fill(
      "INSERT INTO operations (op_key, state, lease_until) VALUES ('demo', 'running', now() + interval '30 seconds');\n" +
        'SELECT op_key, state, lease_until FROM operations',
    );
    await run.click();
    await result.getByRole('cell', { name: 'demo' }).waitFor();
    assert.match(await result.innerText(), /last of 2 statements/);
    for (const colorScheme of ['light', 'dark']) {
      await setColorScheme(page, colorScheme);
      await screenshot(page, `lab-${colorScheme}`);
    }
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});
