/**
 * The learner's realm in the tab, in real Chromium against the built site: probe code typed into
 * the lab tries to poison the intrinsics the judge uses, to reach the network through a font, to
 * read the host's time (Intl, performance.timeOrigin, an Event's timeStamp, requestAnimationFrame)
 * and to leave an exception or a rejection no one handles. Every probe is refused or absent, the
 * tab keeps its database, and the Solution and the Starter run next are judged as ever.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, screenshot, urlOf, waitRunnable, waitVerdict, E2E_WAIT_MS } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const button = (page, name) => page.getByRole('button', { name, exact: true });

/** Where the font probe asks for its font: nothing listens there; only a request would show. */
const FONT_URL = 'http://127.0.0.1:9/realm-probe-font.woff2';

const PROBES = `import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  const g = globalThis as any;
  const probes: Record<string, () => unknown> = {
    'Object.prototype.x': () => { (Object.prototype as any).x = 1; },
    'Array.prototype.filter': () => { Array.prototype.filter = function () { return []; } as any; },
    'Array.prototype.every': () => { Array.prototype.every = function () { return true; } as any; },
    'FontFace': () => new g.FontFace('x', 'url(${FONT_URL})').load(),
    'Intl.DateTimeFormat': () => new g.Intl.DateTimeFormat().format(),
    'performance.timeOrigin': () => g.performance.timeOrigin,
    'Event.timeStamp': () => new g.Event('x').timeStamp,
    'requestAnimationFrame': () => g.requestAnimationFrame(() => {}),
    'queueMicrotask': () => g.queueMicrotask(() => { throw new Error('uncaught'); }),
    'setTimeout': () => g.setTimeout(() => { throw new Error('uncaught'); }, 0),
  };
  // Rejections no one handles, one of them with no prototype (no toString to describe it by).
  Promise.reject(Object.create(null));
  Promise.reject(new Error('left alone'));
  const out: string[] = [];
  for (const [name, probe] of Object.entries(probes)) {
    try {
      const got = probe();
      out.push(name + ': reachable (' + typeof got + ')');
    } catch (e) {
      out.push(name + ': ' + (e as Error).name);
    }
  }
  throw new Error('probes: ' + out.join(' | '));
}
`;

test('lab: probes of the realm are refused, the tab keeps its database, and the Solution and Starter are judged as ever', { timeout: 400_000 }, async (t) => {
  const { close, page, errors, requests } = await openPage(browser);
  try {
    await page.goto(urlOf('/lab/receipt-redelivery/'));
    await waitRunnable(page);
    await page.waitForFunction(() => !!window.__eoLab);
    await page.evaluate((text) => window.__eoLab.setCode(text), PROBES);
    await page.getByLabel('Speed').selectOption('instant');
    await button(page, 'Run').click();
    await waitVerdict(page, /Violated|Held|Error/);
    const problems = page.getByTestId('code-errors');
    await problems.getByText(/probes:/).first().waitFor({ timeout: E2E_WAIT_MS });
    const said = await problems.innerText();
    t.diagnostic(said.split('\n')[0]);
    assert.doesNotMatch(said, /reachable/, `every probe refused or absent: ${said}`);
    assert.match(said, /Object\.prototype\.x: TypeError/);
    assert.match(said, /FontFace: TypeError/);
    // The rejections are reported with the run, the one without a prototype too.
    const unhandled = page.getByTestId('unhandled-rejections');
    await unhandled.waitFor({ timeout: E2E_WAIT_MS });
    assert.match(await unhandled.innerText(), /Error: left alone/);
    await screenshot(page, 'lab-realm-probes');

    // The tab is not "failed": Run is enabled again, and the next runs are judged as ever.
    await waitRunnable(page);
    await button(page, 'Solution').click();
    await button(page, 'Run').click();
    const held = await waitVerdict(page, /Held/);
    t.diagnostic(held.split('\n')[0]);
    await waitRunnable(page);
    await button(page, 'Starter').click();
    await button(page, 'Run').click();
    const broken = await waitVerdict(page, /Violated/);
    assert.match(broken, /2 receipts/, `a patched filter would have hidden the duplicate: ${broken}`);
    assert.equal(await page.locator('[data-db-restarts]').getAttribute('data-db-restarts'), '0', 'the database worker was never restarted');

    assert.deepEqual(requests.filter((url) => url.includes('realm-probe-font')), [], 'the font was never requested');
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});
