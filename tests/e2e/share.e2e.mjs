/**
 * Share links in real Chromium: a learner shares code, seed, faults and the selected event; a
 * second learner (own browser profile, own saved code) opens the link, is asked before anything
 * replaces their code, nothing runs until Run, and the first run stops at the shared event.
 * Bad links leave a working default lab; a missing clipboard leaves the link in a visible field.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { labLinkHref } from '../../simulations/course/share-link.ts';
import { launchBrowser, loadFresh, openPage, screenshot, urlOf, waitRunnable, E2E_WAIT_MS } from './helpers.mjs';

const SCENARIO = 'receipt-redelivery';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const button = (page, name) => page.getByRole('button', { name, exact: true });
const getCode = (page) => page.evaluate(() => window.__eoLab.getCode());
const status = (page) => page.getByTestId('lab-status').innerText();

/**
 * Wait for the offer of shared code; if it never comes, fail with what the page showed instead
 * (address, saved code, notices, status), so a rare failure can be told apart from a slow one.
 */
async function waitOffer(page, codes) {
  try {
    await page.getByTestId('share-offer').waitFor({ timeout: E2E_WAIT_MS });
  } catch (error) {
    const seen = await page.evaluate((scenario) => {
      const saved = window.localStorage.getItem(`eo:code:${scenario}`);
      return {
        href: window.location.href.replace(/#(.{12}).*/, '#$1…'),
        saved: saved === null ? 'starter (nothing saved)' : saved.split('\n')[0],
        inEditor: window.__eoLab?.getCode?.().split('\n')[0] ?? 'no lab hooks',
        notice: document.querySelector('[data-testid="share-notice"]')?.textContent ?? 'no notice element',
        status: document.querySelector('[data-testid="lab-status"]')?.textContent ?? 'no status',
        loading: !!document.querySelector('[data-testid="lab-loading"]'),
      };
    }, SCENARIO);
    throw new Error(`no share offer: ${JSON.stringify({ ...seen, expected: codes })}`, { cause: error });
  }
}

async function setCode(page, text) {
  await page.waitForFunction(() => !!window.__eoLab);
  await page.evaluate((t) => window.__eoLab.setCode(t), text);
}

/** The learner's own code: the solution with a comment, so it differs from every variant. */
async function solutionWithComment(page, comment) {
  await button(page, 'Solution').click();
  await page.waitForFunction(() => !!window.__eoLab);
  const solution = await getCode(page);
  return `// ${comment}\n${solution}`;
}

test('share round trip: code, seed, faults and the selected event; the receiver is asked and nothing runs early', { timeout: 240_000 }, async () => {
  // The sender.
  const a = await openPage(browser);
  await a.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(urlOf('/')).origin });
  await a.page.goto(urlOf(`/lab/${SCENARIO}/`));
  await waitRunnable(a.page);
  const senderCode = await solutionWithComment(a.page, 'shared by the sender: "quotes", ünïcode ✓');
  await setCode(a.page, senderCode);
  await a.page.getByLabel('Seed', { exact: true }).fill('5');
  await a.page.getByLabel('Speed').selectOption('instant');
  await button(a.page, 'Run').click();
  await a.page.getByRole('list', { name: 'Event log' }).waitFor({ timeout: E2E_WAIT_MS });
  await a.page.waitForFunction(() => /Finished/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''));
  for (let i = 0; i < 3; i++) assert.equal(await a.page.evaluate(() => window.__eoLab.perform('back')), true);
  const scrub = await a.page.getByLabel('Event', { exact: true }).inputValue();
  const step = Number(scrub);
  assert.ok(step > 0, `an event is selected (${scrub})`);
  await button(a.page, 'Share').click();
  await a.page.waitForFunction(() => /copied/.test(document.querySelector('[data-testid="share-status"]')?.textContent ?? ''));
  const url = await a.page.getByTestId('share-url').inputValue();
  assert.equal(await a.page.evaluate(() => navigator.clipboard.readText()), url, 'the clipboard holds the link');
  assert.match(url, new RegExp(`/lab/${SCENARIO}/#v1\\.[A-Za-z0-9_-]+$`));
  await a.close();

  // The receiver has code of their own.
  const b = await openPage(browser);
  try {
    await b.page.goto(urlOf(`/lab/${SCENARIO}/`));
    await waitRunnable(b.page);
    const mine = await solutionWithComment(b.page, 'the receiver’s own code');
    await setCode(b.page, mine);

    await loadFresh(b.page, url);
    await waitRunnable(b.page);
    await waitOffer(b.page, { sender: senderCode.split('\n')[0], mine: mine.split('\n')[0] });
    assert.equal(await getCode(b.page), mine, 'the saved code is untouched while the offer is open');
    assert.equal(await b.page.getByLabel('Seed', { exact: true }).inputValue(), '5', 'the seed is restored');
    assert.match(await b.page.getByTestId('fault-plan').innerText(), /crash worker-1/);
    assert.match(await b.page.getByTestId('share-restored').innerText(), new RegExp(`up to event ${step + 1}\\.`));
    assert.match(await status(b.page), /Ready/, 'nothing ran');
    assert.equal(await b.page.getByRole('list', { name: 'Event log' }).count(), 0, 'no run on screen');
    await b.page.getByText('View the shared code').click();
    assert.equal((await b.page.getByTestId('shared-code').innerText()).trimEnd(), senderCode.trimEnd(), 'the shared code can be read before loading');
    await screenshot(b.page, 'share-offer');

    await button(b.page, 'Load shared code').click();
    assert.equal(await getCode(b.page), senderCode);
    assert.match(await status(b.page), /Ready/, 'loading is not running');
    await button(b.page, 'Run').click();
    await b.page.waitForFunction(
      (s) => (document.querySelector('[data-testid="lab-status"]')?.textContent ?? '').startsWith(`Paused at event ${s + 1} of`),
      step,
      { timeout: E2E_WAIT_MS },
    );
    assert.equal(await b.page.getByLabel('Event', { exact: true }).inputValue(), String(step), 'the first run stops at the shared event');
    await screenshot(b.page, 'share-restored-run');

    await button(b.page, 'Put my code back').click();
    assert.equal(await getCode(b.page), mine, 'the receiver gets their code back');

    // "Keep mine" on a second visit keeps it, and says nothing was loaded.
    await loadFresh(b.page, url);
    await waitRunnable(b.page);
    await waitOffer(b.page, { sender: senderCode.split('\n')[0], mine: mine.split('\n')[0] });
    await button(b.page, 'Keep mine').click();
    assert.equal(await getCode(b.page), mine);
    assert.equal(await b.page.getByTestId('share-offer').count(), 0);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test('a variant link selects Solution without touching saved code', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    await page.goto(urlOf(`/lab/${SCENARIO}/`));
    await waitRunnable(page);
    await setCode(page, '// mine\nexport async function handleMessage() {}\n');
    const href = labLinkHref({ scenario: SCENARIO, variant: 'solution', seed: 3, faults: [{ kind: 'duplicate-delivery', message: 'm1' }] });
    await loadFresh(page, urlOf(href));
    await waitRunnable(page);
    await page.waitForFunction(() => document.querySelector('button[aria-pressed="true"]')?.textContent?.includes('Solution'));
    assert.equal(await page.getByTestId('share-offer').count(), 0, 'no offer for a variant link');
    assert.equal(await page.getByLabel('Seed', { exact: true }).inputValue(), '3');
    assert.match(await page.getByTestId('fault-plan').innerText(), /deliver m1 to a second consumer/);
    assert.doesNotMatch(await page.getByTestId('fault-plan').innerText(), /crash/, 'the shared plan replaces the demonstration plan');
    await page.getByRole('button', { name: /^Your code/ }).click();
    assert.equal(await getCode(page), '// mine\nexport async function handleMessage() {}\n');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('a shared plan with a fault whose moment never comes: the plan greys it out, the verdict does not count it', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    const faults = [
      { kind: 'crash', process: 'worker-1', before: 'queue.ack' },
      { kind: 'crash', process: 'worker-2', atStep: 9999 },
    ];
    await loadFresh(page, urlOf(labLinkHref({ scenario: SCENARIO, variant: 'starter', seed: 1, faults })));
    await waitRunnable(page);
    await page.getByLabel('Speed').selectOption('instant');
    await button(page, 'Run').click();
    await page.waitForFunction(() => /Violated/.test(document.querySelector('[aria-label="Verdict"]')?.textContent ?? ''), undefined, { timeout: E2E_WAIT_MS });
    const verdict = await page.getByRole('status', { name: 'Verdict' }).innerText();
    assert.match(verdict, /· 1 fault · 1 planned fault never happened/);
    const plan = page.getByTestId('fault-plan');
    assert.match(await plan.getByRole('listitem').nth(0).innerText(), /crash worker-1 just before its first queue\.ack step \(event \d+\)$/);
    assert.match(await plan.getByRole('listitem').nth(1).innerText(), /crash worker-2 at scheduler step 9999 — never happened in this run/);
    await screenshot(page, 'lab-fault-never-happened');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

for (const [name, fragment] of [
  ['garbage', '#v1.!!!not-base64!!!'],
  ['truncated', null],
  ['oversized', `#v1.${'A'.repeat(30_000)}`],
  ['other version', '#v9.abc'],
]) {
  test(`a ${name} link shows a clear message and a working default lab`, { timeout: 120_000 }, async () => {
    const { close, page, errors } = await openPage(browser);
    try {
      const good = labLinkHref({ scenario: SCENARIO, variant: 'starter', seed: 9, faults: [] });
      const hash = fragment ?? good.slice(good.indexOf('#'), good.length - 7);
      await page.goto(urlOf(`/lab/${SCENARIO}/${hash}`));
      await waitRunnable(page);
      const alert = page.getByTestId('share-error');
      await alert.waitFor();
      assert.match(await alert.innerText(), /share link/i);
      assert.match(await alert.innerText(), /usual state/);
      if (name === 'garbage') await screenshot(page, 'share-bad-link');
      // The default lab works: the demonstration runs.
      await page.getByLabel('Speed').selectOption('instant');
      await button(page, 'Run').click();
      await page.getByRole('list', { name: 'Event log' }).waitFor({ timeout: E2E_WAIT_MS });
      assert.notEqual(await page.getByLabel('Seed', { exact: true }).inputValue(), '9');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
}

test('without a clipboard the link stays visible and selected', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }));
    await page.goto(urlOf(`/lab/${SCENARIO}/`));
    await waitRunnable(page);
    await button(page, 'Share').click();
    await page.waitForFunction(() => /not available/.test(document.querySelector('[data-testid="share-status"]')?.textContent ?? ''));
    const field = page.getByTestId('share-url');
    assert.match(await field.inputValue(), /#v1\./);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'share-url', 'the field has focus to copy from');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});
