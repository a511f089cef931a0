/**
 * The learner's path through the lab, in real Chromium against the built site: run the starter and
 * watch the duplicate, switch to the solution and watch it hold, explore 200 schedules; abuse the
 * sandbox (an infinite loop, a throw, a syntax error, an SQL error, an unhandled rejection, the
 * host's clock and network); keep edits across a reload; undo a reset; drive it by keyboard;
 * inject a fault by hand; check accessibility with axe-core in light and dark.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeSerious, launchBrowser, openPage, screenshot, setColorScheme, urlOf, waitRunnable, waitVerdict, E2E_WAIT_MS } from './helpers.mjs';


// PGlite boots slowly in headless Chromium on this machine (5–11 s): wait generously for readiness.

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Open a lab and wait until Run is enabled (the database booted, the machine is ready). */
async function openLab(scenario, options = {}) {
  const opened = await openPage(browser, options);
  await opened.page.goto(urlOf(`/lab/${scenario}/`));
  await waitRunnable(opened.page);
  return opened;
}

const button = (page, name) => page.getByRole('button', { name, exact: true });

async function setCode(page, text) {
  await page.waitForFunction(() => !!window.__eoLab);
  await page.evaluate((t) => window.__eoLab.setCode(t), text);
}

const getCode = (page) => page.evaluate(() => window.__eoLab.getCode());

async function runInstantly(page) {
  await page.getByLabel('Speed').selectOption('instant');
  await button(page, 'Run').click();
}

for (const scenario of ['receipt-redelivery', 'concurrent-redelivery']) {
  test(`lab ${scenario}: the starter sends 2 receipts, the solution holds, 200 explored schedules hold`, { timeout: 240_000 }, async (t) => {
    const { close, page, errors } = await openLab(scenario);
    try {
      const seed = await page.getByLabel('Seed', { exact: true }).inputValue();
      await button(page, 'Starter').click();
      await runInstantly(page);
      const broken = await waitVerdict(page, /Violated/);
      assert.match(broken, /2 receipts/, `the verdict names the duplicate: ${broken}`);
      assert.match(broken, new RegExp(`seed ${seed}`));
      // The views of the run are on screen.
      await page.getByRole('list', { name: 'Event log' }).waitFor();
      if (scenario === 'receipt-redelivery') await screenshot(page, 'lab-run-starter-light');

      await button(page, 'Solution').click();
      assert.equal(await page.getByLabel('Seed', { exact: true }).inputValue(), seed, 'same seed');
      await button(page, 'Run').click();
      const held = await waitVerdict(page, /Held/);
      assert.match(held, /Held: every invariant kept/);

      const started = Date.now();
      await button(page, 'Explore').click();
      const explorer = page.getByRole('region', { name: 'Explorer' });
      await explorer.getByText(/0 of 200 schedules violated/).waitFor({ timeout: 180_000 });
      t.diagnostic(`explored 200 schedules in ${Date.now() - started} ms`);
      if (scenario === 'receipt-redelivery') await screenshot(page, 'lab-explored-solution-light');
      assert.deepEqual(errors, [], 'no page or console errors');
    } finally {
      await close();
    }
  });
}

// The sending side in the same lab: the outbox table and the published messages are on screen.
// dual-write's solution must visibly place and publish the order, not hold on empty tables.
const OUTBOX_LABS = [
  ['dual-write', /order 1 committed, but no "order-placed" message was ever published.*order 2/s, /rolled back its open transaction, and order 1 with it.*checkout was retried and order 2 committed; relay-1 published it/s],
  ['relay-crash', /2 receipts/],
  ['relay-concurrency', /published 2×/],
  ['webhook-dedupe', /order 1042 got 2 "payment received" e-mails for one payment/],
];
for (const [scenario, brokenText, heldText] of OUTBOX_LABS) {
  test(`lab ${scenario}: the starter breaks its invariant, the solution holds on the same seed`, { timeout: 180_000 }, async () => {
    const { close, page, errors } = await openLab(scenario);
    try {
      await button(page, 'Starter').click();
      await runInstantly(page);
      assert.match(await waitVerdict(page, /Violated/), brokenText);
      if (scenario === 'dual-write') await screenshot(page, 'lab-dual-write-starter-light');
      await button(page, 'Solution').click();
      await button(page, 'Run').click();
      const held = await waitVerdict(page, /Held/);
      assert.match(held, /Held: every invariant kept/);
      if (heldText) assert.match(held, heldText);
      if (scenario === 'relay-crash') await screenshot(page, 'lab-relay-crash-solution-light');
      if (scenario === 'dual-write') {
        await screenshot(page, 'lab-dual-write-solution-light');
        // Scrubbed back to the rollback (slider 5 = event 6): the order INSERT ran inside BEGIN, the crash
        // dropped the connection and the open transaction, order row included, rolled back.
        await page.getByLabel('Event', { exact: true }).fill('5');
        await page.getByText('As the tables stood after event 6 of', { exact: false }).waitFor({ timeout: E2E_WAIT_MS });
        assert.match(await page.getByTestId('lab-status').innerText(), /^Finished; showing event 6 of \d+$/, 'the status names the moment shown');
        const log = page.getByRole('list', { name: 'Event log' });
        await page.waitForFunction(() => /open transaction rolled back/.test(document.querySelector('[aria-label="Event log"]')?.textContent ?? ''), null, { timeout: E2E_WAIT_MS });
        assert.match(await log.innerText(), /shop → postgres: INSERT INTO orders[^\n]*\n[^]*shop crashes right after its 1st db step matching INSERT INTO orders[^]*shop's connection dropped; its open transaction rolled back/);
        assert.match(await page.locator('body').innerText(), /No rows in orders at this step/, 'the rolled-back order row is gone');
        assert.equal(await page.getByTestId('open-transaction').count(), 0, 'nothing open after the rollback');
        // Two events earlier, at the INSERT: the row is there, said to be uncommitted in shop's open transaction.
        await page.getByLabel('Event', { exact: true }).fill('3');
        await page.getByText('As the tables stood after event 4 of', { exact: false }).waitFor({ timeout: E2E_WAIT_MS });
        assert.match(await page.getByTestId('open-transaction').innerText(), /^shop has a transaction open: what it has written here is not committed/);
        const orders = page.locator('table').filter({ has: page.locator('caption', { hasText: /^orders/ }) });
        assert.match(await orders.innerText(), /^orders\W*1 row[^]*cus_ada/);
        await screenshot(page, 'lab-dual-write-solution-uncommitted-light');
        await screenshot(page, 'lab-dual-write-solution-rollback-light');
      }
      assert.deepEqual(errors, [], 'no page or console errors');
    } finally {
      await close();
    }
  });
}

test('lab: exploring the starter finds a counterexample and replays it in the timeline', { timeout: 240_000 }, async () => {
  const { close, page, errors } = await openLab('concurrent-redelivery');
  try {
    await button(page, 'Starter').click();
    assert.equal(await button(page, 'Starter').getAttribute('aria-pressed'), 'true');
    await button(page, 'Explore').click();
    const replay = page.getByRole('button', { name: 'Replay the smallest counterexample' });
    await replay.waitFor({ timeout: 180_000 }).catch(async (error) => {
      // Say what the page showed instead, so that a timeout here comes with a clue.
      const explorer = await page.getByRole('region', { name: 'Explorer' }).innerText().catch(() => '(no explorer region)');
      const status = await page.getByTestId('lab-status').innerText().catch(() => '(no status)');
      throw new Error(`no counterexample offered: explorer says ${JSON.stringify(explorer)}; status ${JSON.stringify(status)}; errors ${JSON.stringify(errors)}`, { cause: error });
    });
    // The result comes into view by itself: its replay is on screen, not below the fold.
    await page.waitForFunction(() => {
      const b = [...document.querySelectorAll('button')].find((x) => x.textContent?.includes('Replay the smallest counterexample'));
      const r = b?.getBoundingClientRect();
      if (!b || !r) return false;
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return hit !== null && b.contains(hit);
    });
    await page.getByLabel('Speed').selectOption('instant');
    await replay.click();
    const text = await waitVerdict(page, /Violated/);
    assert.match(text, /receipts/);
    // The counterexample is now the plan: Reset, then Run, shows the very same schedule again.
    const plan = await page.getByTestId('fault-plan').innerText();
    const seed = await page.getByLabel('Seed', { exact: true }).inputValue();
    const trace = await page.getByRole('list', { name: 'Event log' }).innerText();
    await button(page, 'Reset').click();
    await page.waitForFunction(() => !/Violated/.test(document.querySelector('[aria-label="Verdict"]')?.textContent ?? ''));
    // (Before a run the plan names no events: they are where the run put each fault.)
    assert.equal(await page.getByTestId('fault-plan').innerText(), plan.replace(/ \(event \d+\)/g, ''), 'Ready shows the counterexample as the plan');
    await button(page, 'Run').click();
    assert.equal(await waitVerdict(page, /Violated/), text);
    assert.equal(await page.getByRole('list', { name: 'Event log' }).innerText(), trace, 'the same schedule');
    assert.equal(await page.getByLabel('Seed', { exact: true }).inputValue(), seed);
    // One click puts the lesson's own seed and faults back.
    await page.getByTestId('lesson-plan').click();
    await page.getByTestId('lesson-plan').waitFor({ state: 'detached' });
    assert.notEqual(await page.getByTestId('fault-plan').innerText(), plan);
    await button(page, 'Run').click();
    await waitVerdict(page, /Violated/);
    await replay.click();
    await waitVerdict(page, /Violated/);
    // The results are about the starter: shown with other code in the editor, they say so.
    assert.equal(await page.getByTestId('explorer-stale').count(), 0);
    await button(page, 'Solution').click();
    await page.getByTestId('explorer-stale').waitFor();
    await button(page, 'Starter').click();
    await page.getByTestId('explorer-stale').waitFor({ state: 'detached' });
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('lab sandbox: a stuck loop is stopped, errors point at their line, the page stays responsive', { timeout: 300_000 }, async (t) => {
  const { close, page, errors } = await openLab('receipt-redelivery');
  try {
    // 1. An infinite loop: the loop guard stops it inside the worker within ~1 s, the code is
    // kept, and the database stays up (no restart).
    const loop = `import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  while (true) {}
}
`;
    await setCode(page, loop);
    const started = Date.now();
    await button(page, 'Run').click();
    await page.getByTestId('notice-text').filter({ hasText: /ran for \d+ s without yielding: a loop that never ends, or synchronous work too long between two awaits\. The run was stopped\. Your code is kept\./ }).waitFor({ timeout: E2E_WAIT_MS });
    t.diagnostic(`stuck message after ${Date.now() - started} ms`);
    await button(page, 'Solution').click();
    assert.equal(await button(page, 'Solution').getAttribute('aria-pressed'), 'true');
    await page.getByRole('button', { name: /^Your code/ }).click();
    assert.equal(await getCode(page), loop, 'the code is kept');
    await screenshot(page, 'lab-stuck-light');
    await waitRunnable(page);
    const restarts = () => page.evaluate(() => Number(document.querySelector('[data-db-restarts]')?.getAttribute('data-db-restarts')));
    assert.equal(await restarts(), 0, 'the loop was stopped inside the worker: its database was not restarted');
    // Explore stops at the first stuck schedule in whichever worker meets it, the same way.
    await button(page, 'Explore').click();
    await page.getByRole('region', { name: 'Explorer' }).getByText(/without yielding/).waitFor({ timeout: E2E_WAIT_MS });
    await waitRunnable(page);
    assert.equal(await restarts(), 0, 'an exploration stuck in a worker restarts nothing either');

    // 1b. A loop that posts the worker's heartbeat itself: the page does not hear the learner's
    // postMessage (the worker answers on a private port), so it is stopped all the same.
    await setCode(page, `import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  // (postMessage is gone from the sandbox too; were it there, the page would not listen.)
  const post = (globalThis as any).postMessage?.bind(globalThis) ?? ((m: unknown) => m);
  for (let n = 0; ; n++) if (n % 1_000_000 === 0) post({ type: 'heartbeat' });
}
`);
    const spoofed = Date.now();
    await button(page, 'Run').click();
    // The first loop's message goes with the new run, so the one awaited next is this loop's.
    const stuckNotice = page.getByTestId('notice-text').filter({ hasText: /without yielding: a loop that never ends/ });
    await stuckNotice.waitFor({ state: 'detached', timeout: E2E_WAIT_MS });
    await stuckNotice.waitFor({ timeout: E2E_WAIT_MS });
    t.diagnostic(`a loop posting heartbeats stopped after ${Date.now() - spoofed} ms`);
    await waitRunnable(page);
    assert.equal(await restarts(), 0, 'stopped inside the worker too');

    // 1c. Work inside one native call never reaches the loop guard: a regular expression that
    // backtracks for ever. The page's watchdog ends the worker, and a fresh database takes over.
    await setCode(page, `import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  /^(a+)+$/.test('a'.repeat(48) + 'b');
  return 'ack';
}
`);
    await button(page, 'Run').click();
    await stuckNotice.waitFor({ state: 'detached', timeout: E2E_WAIT_MS });
    await stuckNotice.waitFor({ timeout: E2E_WAIT_MS });
    // (Waiting for the "Restarting…" text raced a quick restart: the counter is what stays.)
    await page.waitForFunction(() => Number(document.querySelector('[data-db-restarts]')?.getAttribute('data-db-restarts')) >= 1, null, { timeout: E2E_WAIT_MS });
    await waitRunnable(page);

    // 2. A throw: the message names the error and its line; a marker sits on the line.
    await setCode(page, `import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  throw new Error('boom');
}
`);
    await runInstantly(page);
    const thrown = page.getByTestId('code-errors');
    await thrown.waitFor({ timeout: E2E_WAIT_MS });
    assert.match(await thrown.innerText(), /Error: boom — line 4/);
    await page.locator('[data-testid="code-editor"] .squiggly-error').first().waitFor({ timeout: E2E_WAIT_MS });

    // 3. A syntax error: the code does not load; the message has the line.
    await setCode(page, `export async function handleMessage(msg, env) {
  const x = ;
  return 'ack';
}
`);
    await button(page, 'Run').click();
    const load = page.getByTestId('load-error');
    await load.waitFor({ timeout: E2E_WAIT_MS });
    assert.match(await load.innerText(), /line 2/);
    await waitVerdict(page, /Error: the code could not run/);
    // Nothing ran, and the page says so: not a bare "Finished", nor "Press Run to play…".
    await page.getByText('Nothing ran: your code did not load. Fix the error above and press Run again.').waitFor();
    assert.match(await page.getByTestId('lab-status').innerText(), /Finished: the code did not load/);

    // 4. An SQL error inside the handler: PostgreSQL's message names the table.
    await setCode(page, `import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query('SELECT * FROM nope');
  return 'ack';
}
`);
    await button(page, 'Run').click();
    await page.getByTestId('code-errors').getByText(/relation "nope" does not exist/).first().waitFor({ timeout: E2E_WAIT_MS });

    // 5. An unhandled rejection: reported (with its line), and the run still completes.
    await setCode(page, `import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  Promise.reject(new Error('late'));
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}
`);
    await button(page, 'Run').click();
    await waitVerdict(page, /Violated|Held/);
    const unhandled = page.getByTestId('unhandled-rejections');
    await unhandled.waitFor({ timeout: E2E_WAIT_MS });
    assert.match(await unhandled.innerText(), /Error: late/);
    t.diagnostic(`unhandled rejection reported as: ${await unhandled.innerText()}`);

    // 6. The host's clock and network are not reachable from learner code.
    await setCode(page, `import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const probes = [() => Date.now(), () => Math.random(), () => setTimeout(() => {}, 1), () => fetch('/'), () => new Date(), () => indexedDB.open('x'),
    // Handed straight to a promise, a guarded function runs with no learner frame on the stack.
    () => Promise.resolve().then(Date.now), () => env.db.query('SELECT 1').then(Math.random), () => Promise.resolve().then(Date),
    () => Promise.resolve().then(performance.now.bind(performance)), () => Promise.resolve().then(crypto.randomUUID.bind(crypto)),
    // Reached a server, and kept files across reloads, before the red-team review of 2026-12-04.
    () => new WebSocketStream('ws://127.0.0.1:9/'), () => webkitRequestFileSystemSync(0, 1024),
    // The worker's own channel, and closing the worker (the page took that for a stuck loop).
    () => postMessage({ type: 'heartbeat' }), () => close(),
    // Round the guards: the host's Date by its prototype, and a stack trace without the learner's frame.
    () => new (new Date(0).constructor)(), () => { Error.prepareStackTrace = () => 'Error\\n    at host (http://x/a.js:1:1)'; return Date.now(); }];
  const out = [];
  for (const p of probes) {
    try { await p(); out.push('reachable'); } catch (e) { out.push(String(e.message)); }
  }
  throw new Error('probes: ' + out.join(' | '));
}
`);
    await button(page, 'Run').click();
    const probes = page.getByTestId('code-errors');
    await probes.getByText(/probes:/).first().waitFor({ timeout: E2E_WAIT_MS });
    const probeText = await probes.innerText();
    t.diagnostic(probeText.split('\n')[0]);
    assert.doesNotMatch(probeText, /reachable/, `every probe refused: ${probeText}`);
    assert.match(probeText, /Date\.now\(\) is not available in the simulation/);
    await screenshot(page, 'lab-errors-light');

    // PGlite still answers after the lock-down.
    await page.locator('#main').getByText('Query the database yourself').click();
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByTestId('query-result').waitFor();
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});

test('lab: a slow query is not blamed on the run waiting behind it, and Stop query restarts the database', { timeout: 180_000 }, async (t) => {
  const { close, page, errors } = await openLab('receipt-redelivery');
  try {
    await page.locator('#main').getByText('Query the database yourself').click();
    const panel = page.getByTestId('query-panel');
    const sql = page.getByLabel('SQL', { exact: true });
    // A slow query, then Run: the run waits for it, and is not taken for a loop that never yields.
    // The query's 12 s are the window in which the test must see Stop query and press Run: ample
    // on a loaded machine, where 4 s were seen to pass before the button was looked for.
    await sql.fill('SELECT pg_sleep(12)');
    await panel.getByRole('button', { name: 'Run query' }).click();
    await panel.getByRole('button', { name: 'Stop query' }).waitFor({ timeout: E2E_WAIT_MS });
    await runInstantly(page);
    await page.getByText('Waiting for your query to finish…').first().waitFor({ timeout: E2E_WAIT_MS });
    // Where the timeline will be, too: not "Running the schedule", which it is not yet doing.
    await page.getByText('Waiting for your query to finish; the schedule runs right after it.').waitFor({ timeout: E2E_WAIT_MS });
    await page.getByTestId('query-result').waitFor({ timeout: E2E_WAIT_MS });
    const verdict = await waitVerdict(page, /Violated|Held/, 60_000);
    t.diagnostic(verdict.split('\n')[0]);
    assert.equal(await page.getByText(/without yielding/).count(), 0, 'no "stuck" message for a run that waited on a query');

    // A query that would take a minute: Stop query restarts the database, which then answers again.
    await sql.fill('SELECT pg_sleep(60)');
    await panel.getByRole('button', { name: 'Run query' }).click();
    const stop = panel.getByRole('button', { name: 'Stop query' });
    await stop.waitFor({ timeout: E2E_WAIT_MS });
    await screenshot(page, 'lab-query-slow');
    const stoppedAt = Date.now();
    await stop.click();
    await page.getByTestId('query-stopped').getByText(/Query stopped/).waitFor({ timeout: E2E_WAIT_MS });
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'TEXTAREA', 'the keyboard stays in the SQL box');
    await waitRunnable(page, 60_000);
    t.diagnostic(`database back ${Date.now() - stoppedAt} ms after Stop`);
    await sql.fill('SELECT 41 + 1 AS answer');
    await panel.getByRole('button', { name: 'Run query' }).click();
    await page.getByTestId('query-result').getByRole('cell', { name: '42', exact: true }).waitFor({ timeout: E2E_WAIT_MS });

    // A long result shows 200 rows and says how many more there are: 5,000 rows must not make the page 145,000 px tall.
    await sql.fill('SELECT g FROM generate_series(1, 5000) g');
    await panel.getByRole('button', { name: 'Run query' }).click();
    const more = page.getByTestId('query-more');
    await more.getByText('4,800 more rows not shown.').waitFor({ timeout: E2E_WAIT_MS });
    assert.equal(await page.getByTestId('query-result').locator('tbody tr').count(), 200);
    await more.getByRole('button', { name: 'Show 200 more' }).click();
    assert.equal(await page.getByTestId('query-result').locator('tbody tr').count(), 400);
    await more.getByText('4,600 more rows not shown.').waitFor();
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});

test('lab: edits survive a reload; reset to starter can be undone', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openLab('receipt-redelivery');
  try {
    const starter = await getCode(page);
    // At the top, so the editor shows it whatever its height (Monaco draws only the lines in view).
    const mine = `// my note: claim before sending\n${starter}`;
    await setCode(page, mine);
    await page.reload();
    await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor({ timeout: E2E_WAIT_MS });
    await page.waitForFunction((m) => window.__eoLab?.getCode() === m, mine, { timeout: E2E_WAIT_MS });
    const shown = (await page.locator('[data-testid="code-editor"] .view-lines').innerText()).replace(/\s+/g, ' ');
    assert.match(shown, /my note/);

    // By keyboard: each button hands the focus to the one that replaces it, never letting it fall to <body>.
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    await button(page, 'Reset to starter').focus();
    await page.keyboard.press('Enter');
    assert.equal(await getCode(page), starter);
    await page.getByTestId('undo-notice').waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Undo');
    await page.keyboard.press('Enter');
    assert.equal(await getCode(page), mine);
    await page.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Reset to starter', undefined, { timeout: E2E_WAIT_MS }).catch(async () => {
      throw new Error(`focus after Undo is on "${await focused()}", not "Reset to starter"`);
    });
    await page.reload();
    await page.waitForFunction((m) => window.__eoLab?.getCode() === m, mine, { timeout: E2E_WAIT_MS });
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('lab keyboard: Space runs and pauses, ArrowRight steps; a crash can be injected mid-run', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openLab('receipt-redelivery');
  try {
    await page.getByRole('heading', { level: 1 }).click();
    await page.keyboard.press('Space');
    const status = page.getByTestId('lab-status');
    await page.waitForFunction(() => /Playing event/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), undefined, { timeout: E2E_WAIT_MS });
    await page.keyboard.press('Space');
    await page.waitForFunction(() => /Paused at event/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''));
    const before = Number(/Paused at event (\d+)/.exec(await status.innerText())[1]);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((n) => new RegExp(`Paused at event ${n}\\b`).test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), before + 1);
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((n) => new RegExp(`Paused at event ${n}\\b`).test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), before);

    // Inject: crash worker-2 at the event shown; the plan lists it and playback goes on.
    await button(page, 'Crash worker-2 now').click();
    await page.getByTestId('fault-plan').getByText(/crash worker-2 at event \d+/).waitFor({ timeout: E2E_WAIT_MS });
    await page.getByLabel('Speed').selectOption('instant');
    await waitVerdict(page, /Violated|Held/);

    // The event log is one Tab stop, walked with ↑/↓, not a stop for every event.
    const log = page.getByRole('list', { name: 'Event log' });
    assert.equal(await log.locator('button[tabindex="0"]').count(), 1, 'one line is the Tab stop');
    await log.locator('button[tabindex="0"]').focus();
    const current = () => page.evaluate(() => Number(document.activeElement?.getAttribute('data-event')));
    const selectedLine = () => log.locator('[aria-current="step"]').getAttribute('data-event').then(Number);
    const start = await current();
    await page.keyboard.press('ArrowUp');
    assert.equal(await current(), start - 1, 'focus moved up a line');
    assert.equal(await selectedLine(), start - 1, 'and selected it');
    await page.keyboard.press('Home');
    assert.equal(await current(), 0);
    await page.keyboard.press('ArrowDown');
    assert.equal(await selectedLine(), 1);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('[aria-label="Event log"]') === null), true, 'one Tab leaves the log');

    await button(page, 'Clear injected faults').click();
    await page.keyboard.press('r');
    await page.getByText('Press Run to play the demonstration schedule').waitFor();

    // → from Ready starts a run paused at its first event, as the fault hint promises.
    assert.equal(await button(page, 'Step').isEnabled(), true, 'Step is offered before a run');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => /^Paused at event 1 of/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), undefined, { timeout: E2E_WAIT_MS });
    // A screen reader hears what the event was, not only its number; the count is not read twice.
    const heard = await page.getByTestId('lab-status').evaluate((p) => p.querySelector('.sr-only')?.textContent ?? '');
    const first = await page.getByRole('list', { name: 'Event log' }).getByRole('listitem').first().innerText();
    assert.match(heard, /^Paused at event 1 of \d+: \S/);
    assert.ok(first.includes(heard.replace(/^Paused at event 1 of \d+: /, '').slice(0, 20)), `the status names the event: "${heard}" / log: "${first}"`);
    assert.equal(await page.getByTestId('lab-status').locator('[aria-hidden="true"]').last().innerText(), heard.split(':')[0]);
    // Three quick presses from Ready land on the third event: those made while the run was being
    // computed are kept, not lost with the run stopping at the first.
    await page.keyboard.press('r');
    await page.getByText('Press Run to play the demonstration schedule').waitFor();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => /^Paused at event 3 of/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), undefined, { timeout: E2E_WAIT_MS });
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('lab: "Redeliver now" waits for a message in flight, and the duplicate lands after the event it was injected at', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openLab('receipt-redelivery');
  try {
    await button(page, 'Solution').click();
    await page.getByRole('heading', { level: 1 }).click();
    const status = page.getByTestId('lab-status');
    const redeliver = button(page, 'Redeliver now');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => /^Paused at event 1 of/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), undefined, { timeout: E2E_WAIT_MS });
    assert.equal(await redeliver.isEnabled(), false, 'nothing is in flight at the first event');
    // Step until a consumer holds a message.
    for (let i = 0; i < 40 && !(await redeliver.isEnabled()); i++) {
      const n = Number(/Paused at event (\d+)/.exec(await status.innerText())[1]);
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((k) => new RegExp(`Paused at event ${k}\\b`).test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), n + 1);
    }
    assert.equal(await redeliver.isEnabled(), true, 'a message was held within 40 events');
    const at = Number(/Paused at event (\d+)/.exec(await status.innerText())[1]);
    await redeliver.click();
    const line = page.getByTestId('fault-plan').getByText(/deliver m\d+ to a second consumer while the first holds it, from event \d+ on/);
    await line.waitFor({ timeout: E2E_WAIT_MS });
    await page.getByLabel('Speed').selectOption('instant');
    await waitVerdict(page, /Held|Violated/);
    const landed = Number(/from event (\d+) on/.exec(await line.innerText())?.[1]);
    assert.ok(landed > at, `the duplicate landed at event ${landed}, after event ${at} it was injected at`);
    const log = await page.getByRole('list', { name: 'Event log' }).innerText();
    assert.match(log, /again, while another consumer still holds it/);
    await screenshot(page, 'lab-redeliver-now');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test("lab: the first Run keeps the learner's place on the page, and keyboard focus stays on the controls", { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openLab('receipt-redelivery');
  try {
    // The lab's own placeholder ("Loading the lab…") must never come back once the lab is shown.
    await page.evaluate(() => {
      window.__labBlanked = false;
      new MutationObserver(() => {
        if (document.querySelector('[data-testid="lab-loading"]')) window.__labBlanked = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    const run = button(page, 'Run');
    await run.scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, 200));
    const scrolled = await page.evaluate(() => window.scrollY);
    assert.ok(scrolled > 0, 'the page is scrolled down to the controls');
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        return { tag: el?.tagName ?? null, text: (el?.textContent ?? '').trim().slice(0, 40), inToolbar: !!el?.closest('[role="toolbar"]') };
      });

    // Enter on Run: Run is disabled while the run plays; focus moves to a control beside it.
    await run.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-action="run"]')?.disabled === true, undefined, { timeout: E2E_WAIT_MS });
    await page.waitForTimeout(100);
    const whileRunning = await focused();
    assert.notEqual(whileRunning.tag, 'BODY', `focus stays on the controls while Run is disabled (on ${JSON.stringify(whileRunning)})`);
    assert.ok(whileRunning.inToolbar, `focus is in the playback toolbar (on ${JSON.stringify(whileRunning)})`);
    await page.getByLabel('Speed').selectOption('instant');
    await waitVerdict(page, /Violated|Held/);
    assert.equal(await page.evaluate(() => window.__labBlanked), false, 'the lab was never replaced by its loading placeholder');
    const after = await page.evaluate(() => window.scrollY);
    assert.ok(Math.abs(after - scrolled) < 150, `the page stayed where the learner was (scrollY ${scrolled} → ${after})`);

    // A half-typed seed is marked and explained, never applied; leaving the box puts the seed back.
    const seedBox = page.getByLabel('Seed', { exact: true });
    const seedBefore = await seedBox.inputValue();
    for (const bad of ['', '-5', '2.5']) {
      await seedBox.fill(bad);
      assert.equal(await seedBox.getAttribute('aria-invalid'), 'true', `"${bad}" is marked invalid`);
      await page.getByText(`seed ${seedBefore} is still in use`).waitFor();
    }
    await seedBox.blur();
    assert.equal(await seedBox.inputValue(), seedBefore, 'leaving the box restores the seed in use');

    // Reset by keyboard: Reset is disabled afterwards, and focus again stays in the toolbar.
    const reset = button(page, 'Reset');
    await reset.focus();
    await page.keyboard.press('Enter');
    await page.getByText('Press Run to play the demonstration schedule').waitFor();
    await page.waitForTimeout(100);
    const afterReset = await focused();
    assert.ok(afterReset.tag !== 'BODY' && afterReset.inToolbar, `focus stays in the toolbar after Reset (on ${JSON.stringify(afterReset)})`);
    // On Run, the next thing to do, not on Explore beside Reset (where the next Enter would explore).
    assert.equal(afterReset.text, 'Run', `focus on Run after Reset (on ${JSON.stringify(afterReset)})`);

    // Step from Ready: the whole toolbar is disabled while the run loads; focus comes back to Step
    // afterwards, so Enter steps again (left on the disabled toolbar, Enter would do nothing).
    const status = () => page.getByTestId('lab-status').innerText();
    await button(page, 'Step').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^Paused at event 1 of/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), undefined, { timeout: E2E_WAIT_MS });
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-action') === 'step', undefined, { timeout: E2E_WAIT_MS });
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^Paused at event 2 of/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), undefined, { timeout: E2E_WAIT_MS });
    assert.match(await status(), /^Paused at event 2 of/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

// One load: the page after the run is checked in light, then in dark (it follows the system's
// scheme without a reload: CSS, and Monaco's theme).
test('lab accessibility after a run: no serious or critical axe violations, light and dark', { timeout: 120_000 }, async () => {
  const { close, page } = await openLab('receipt-redelivery');
  try {
    await button(page, 'Starter').click();
    await runInstantly(page);
    await waitVerdict(page, /Violated/);
    await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor({ timeout: E2E_WAIT_MS });
    for (const colorScheme of ['light', 'dark']) {
      await setColorScheme(page, colorScheme);
      const bad = await axeSerious(page);
      assert.deepEqual(bad, [], `${colorScheme}: ${JSON.stringify(bad, null, 2)}`);
      await screenshot(page, `lab-run-${colorScheme}`);
    }
  } finally {
    await close();
  }
});

// One load: each state that was checked with axe in light and in dark is checked in both schemes.
test('lab (light and dark): "What changed" shows the solution\'s fix line by line, then follows "Your code" against the starter or the solution', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    await page.goto(urlOf('/lab/random-key-on-retry/'));
    await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor({ timeout: 60_000 });
    await button(page, 'Starter').click();
    assert.equal(await page.getByTestId('code-changes').count(), 0, 'the starter has nothing to compare with');

    await button(page, 'Solution').click();
    const changes = page.getByTestId('code-changes');
    const summary = changes.locator('summary');
    assert.equal(await summary.innerText(), 'What the solution changes · 4 lines added, 3 removed');
    // Closed until asked for, and opened from the keyboard.
    assert.equal(await changes.getAttribute('open'), null);
    await summary.focus();
    await page.keyboard.press('Enter');
    const diff = changes.getByRole('region', { name: /^What the solution changes/ });
    await diff.waitFor();
    // The one word that changed on the key's line is marked: uuid() out, key in.
    assert.deepEqual(await diff.locator('[data-kind="added"] ins').allTextContents(), ['opKey, type ', 'type ', 'key']);
    assert.match(await diff.locator('[data-kind="removed"] del').allTextContents().then((t) => t.join('|')), /env\.random\.uuid\(\)/);
    assert.match(await diff.locator('[data-kind="added"]').nth(1).innerText(), /const key = opKey\('charge', \{ orderId: order\.id \}\)/);
    for (const colorScheme of ['light', 'dark']) {
      await setColorScheme(page, colorScheme);
      assert.deepEqual(await axeSerious(page), [], colorScheme);
    }
    await setColorScheme(page, 'light');

    // "Your code" keeps the section open and compares the code on screen with the starter…
    await button(page, 'Your code').click();
    assert.equal(await summary.innerText(), 'What you changed in the starter · nothing yet');
    await setCode(page, (await getCode(page)).replace('env.random.uuid()', "opKey('charge', { orderId: order.id })"));
    await page.waitForFunction(() => document.querySelector('[data-testid="code-changes"] summary')?.textContent?.includes('1 line added, 1 removed'));
    // …or with the solution.
    await changes.getByRole('button', { name: 'the solution' }).click();
    assert.match(await summary.innerText(), /^Your code beside the solution · \d+ lines only in the solution, \d+ only in yours$/);
    assert.equal(await changes.getByRole('button', { name: 'the solution' }).getAttribute('aria-pressed'), 'true');
    assert.match(await changes.getByRole('region').locator('[data-kind="removed"] .sr-only').first().innerText(), /^removed from your code, line \d+:/);
    for (const colorScheme of ['light', 'dark']) {
      await setColorScheme(page, colorScheme);
      await screenshot(page, `lab-code-changes-${colorScheme}`);
      assert.deepEqual(await axeSerious(page), [], colorScheme);
    }
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('lab: a check-then-insert inside one transaction sends once in PGlite, and the verdict says why that proves nothing', { timeout: 120_000 }, async () => {
  const { readFileSync } = await import('node:fs');
  const code = readFileSync(new URL('../fixtures/anti-patterns/concurrent-redelivery-select-in-tx.ts', import.meta.url), 'utf8');
  const { close, page, errors } = await openLab('concurrent-redelivery');
  try {
    await button(page, 'Your code').click();
    await setCode(page, code);
    await runInstantly(page);
    const verdict = await waitVerdict(page, /Violated/);
    // One receipt, as PGlite ran the two transactions one after the other…
    assert.match(verdict, /At most one receipt per order\s+every order got at most one receipt \(1 sent\)/);
    // …and the check of what PGlite cannot show names the transaction and the race it hid.
    assert.match(verdict, /No e-mail sent from inside a database transaction\s+worker-\d called email\.send at [\d.]+ s inside the transaction it began at [\d.]+ s\./);
    assert.match(verdict, /PGlite runs one transaction at a time, so no other worker could read until the COMMIT\. On PostgreSQL a SELECT takes no lock: two workers would both find no row and both send\./);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});
