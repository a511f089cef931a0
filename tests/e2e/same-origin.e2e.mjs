import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, urlOf, waitForDbReady, E2E_WAIT_MS } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test('no request leaves the origin: PGlite and Monaco come from the app itself', { timeout: 120_000 }, async (t) => {
  const { context, page, requests, errors } = await openPage(browser, { fresh: true });
  try {
    await page.goto(urlOf('/'));
    await waitForDbReady(page, 30_000);
    // Client-side navigation to the first lesson, then a direct load of another.
    await page.getByRole('link', { name: /Start here/ }).click();
    await page.waitForURL(/\/lab\/receipt-redelivery\/$/);
    await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor({ timeout: E2E_WAIT_MS });
    await waitForDbReady(page, 30_000);
    await page.goto(urlOf('/lab/lease-expiry/'));
    await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor({ timeout: E2E_WAIT_MS });
    await waitForDbReady(page, 30_000);
    await page.locator('#main').getByText('Query the database yourself').click();
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByTestId('query-result').waitFor();
    // Give Monaco's TypeScript worker a moment to fetch whatever it fetches.
    await page.waitForTimeout(1500);

    const origin = new URL(urlOf('/')).origin;
    const outside = requests.filter((url) => {
      if (url.startsWith('data:')) return false;
      const parsed = new URL(url.startsWith('blob:') ? url.slice(5) : url);
      return parsed.origin !== origin;
    });
    t.diagnostic(`${requests.length} requests, all checked against ${origin}`);
    assert.deepEqual(outside, [], 'requests to other origins');

    // The log covers the workers' requests too, or the check above would prove nothing.
    assert.ok(requests.some((u) => u.endsWith('.wasm')), 'PGlite wasm fetched (by the worker) and recorded');
    assert.ok(requests.some((u) => u.includes('.data')), "PGlite's data file fetched and recorded");
    assert.ok(requests.some((u) => /turbopack-worker|worker/.test(u)), 'worker scripts recorded');
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await context.close();
  }
});
