/**
 * Trace export from the lab in real Chromium: after a run, "Download trace (JSON)" saves the run
 * (with its trace hash and verdict) and "Copy Mermaid diagram" puts a sequence diagram on the
 * clipboard; before the verdict is shown the exports are disabled, so they never give it away.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, urlOf, waitVerdict, E2E_WAIT_MS } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test('the lab exports the finished run as JSON and as a Mermaid diagram', { timeout: 180_000 }, async () => {
  const { context, close, page, errors } = await openPage(browser);
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(urlOf('/')).origin });
    await page.goto(urlOf('/lab/receipt-redelivery/'));
    await page.waitForFunction(() => {
      const b = document.querySelector('[data-action="run"]');
      return b && !b.disabled;
    }, undefined, { timeout: 60_000 });
    assert.equal(await page.locator('[data-action="download-trace-json"]').isDisabled(), true, 'nothing to export before a run');
    await page.getByRole('button', { name: 'Starter', exact: true }).click();
    await page.getByLabel('Speed').selectOption('instant');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForFunction(() => /Finished/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), undefined, { timeout: E2E_WAIT_MS });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download trace (JSON)' }).click()]);
    assert.match(download.suggestedFilename(), /^receipt-redelivery-starter-seed-\d+\.trace\.json$/);
    const doc = JSON.parse(await readFile(await download.path(), 'utf8'));
    assert.equal(doc.format, 'effectively-once/trace');
    assert.equal(doc.scenario, 'receipt-redelivery');
    assert.equal(doc.verdict, 'violated');
    assert.match(doc.traceHash, /^[0-9a-f]{16,}$/);
    assert.ok(doc.trace.length > 10);
    assert.equal('code' in doc, false, "the starter's code is the scenario's: not copied into the export");

    await page.getByRole('button', { name: 'Copy Mermaid diagram' }).click();
    await page.waitForFunction(() => /Mermaid diagram copied/.test(document.querySelector('[data-testid="share-status"]')?.textContent ?? ''));
    const mermaid = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(mermaid, /^sequenceDiagram\n/);
    assert.match(mermaid, /participant p0 as queue\n {2}participant p1 as worker-1\n/);
    assert.match(mermaid, /Note over p1: 💥 worker-1 crashes/);

    const [mmd] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Mermaid (.mmd)' }).click()]);
    assert.equal(await readFile(await mmd.path(), 'utf8'), mermaid, 'the file and the clipboard hold the same diagram');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

/** Download the JSON of the finished run on screen. */
async function exportedRun(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download trace (JSON)' }).click()]);
  return JSON.parse(await readFile(await download.path(), 'utf8'));
}

const waitFinished = (page) =>
  page.waitForFunction(() => /Finished/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''), undefined, { timeout: E2E_WAIT_MS });

test('a shared replay of a counterexample (steered by scheduler choices) replays to the same trace hash', { timeout: 300_000 }, async () => {
  const a = await openPage(browser);
  const b = await openPage(browser);
  try {
    await a.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(urlOf('/')).origin });
    await a.page.goto(urlOf('/lab/concurrent-redelivery/'));
    await a.page.waitForFunction(() => !document.querySelector('[data-action="run"]')?.disabled, undefined, { timeout: 60_000 });
    await a.page.getByRole('button', { name: 'Starter', exact: true }).click();
    await a.page.getByRole('button', { name: 'Explore', exact: true }).click();
    const replay = a.page.getByRole('button', { name: 'Replay the smallest counterexample' });
    await replay.waitFor({ timeout: 180_000 });
    await a.page.getByLabel('Speed').selectOption('instant');
    await replay.click();
    await waitFinished(a.page);
    const sent = await exportedRun(a.page);
    await a.page.getByRole('button', { name: 'Share', exact: true }).click();
    await a.page.waitForFunction(() => /copied/.test(document.querySelector('[data-testid="share-status"]')?.textContent ?? ''));
    const url = await a.page.getByTestId('share-url').inputValue();

    await b.page.goto(url);
    await b.page.waitForFunction(() => !document.querySelector('[data-action="run"]')?.disabled, undefined, { timeout: 60_000 });
    await b.page.getByTestId('share-restored').waitFor();
    await b.page.getByLabel('Speed').selectOption('instant');
    await b.page.getByRole('button', { name: 'Run', exact: true }).click();
    // The shared event is the replay's last one: stopping there is finishing, verdict and all.
    await waitFinished(b.page);
    await waitVerdict(b.page, /Violated/);
    const received = await exportedRun(b.page);
    assert.deepEqual(received.faults, sent.faults);
    assert.equal(received.seed, sent.seed);
    assert.equal(received.traceHash, sent.traceHash, 'the receiver sees exactly the shared run');

    // Run again, same code: the link's choices steer it too, so it is the same schedule again.
    await b.page.getByRole('button', { name: 'Run', exact: true }).click();
    await waitFinished(b.page);
    assert.equal((await exportedRun(b.page)).traceHash, sent.traceHash, 'a second Run of the shared code replays it again');

    // The choices mattered: another seed drops them, and the seed typed back alone makes another schedule.
    await b.page.getByLabel('Seed', { exact: true }).fill(String(sent.seed + 1));
    await b.page.getByLabel('Seed', { exact: true }).fill(String(sent.seed));
    await b.page.getByRole('button', { name: 'Run', exact: true }).click();
    await waitFinished(b.page);
    const seeded = await exportedRun(b.page);
    assert.deepEqual(seeded.faults, sent.faults);
    assert.notEqual(seeded.traceHash, sent.traceHash, 'without the link\'s choices the run would differ');
    assert.deepEqual([...a.errors, ...b.errors], []);
  } finally {
    await a.close();
    await b.close();
  }
});

test("a run of your own code, exported from the browser, replays in the CLI to the same trace hash", { timeout: 240_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  const dir = await mkdtemp(path.join(tmpdir(), 'eo-export-'));
  try {
    await page.goto(urlOf('/lab/receipt-redelivery/'));
    await page.waitForFunction(() => {
      const b = document.querySelector('[data-action="run"]');
      return b && !b.disabled;
    }, undefined, { timeout: 60_000 });
    await page.getByRole('button', { name: 'Starter', exact: true }).click();
    const starter = await page.evaluate(() => window.__eoLab.getCode());
    const mine = `// my attempt, exported\n${starter}`;
    await page.evaluate((t) => window.__eoLab.setCode(t), mine);
    await page.getByLabel('Speed').selectOption('instant');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await waitFinished(page);
    const doc = await exportedRun(page);
    assert.equal(doc.variant, 'your code');
    assert.equal(doc.code, mine, 'the code that ran travels in the export');
    const file = path.join(dir, 'mine.trace.json');
    await writeFile(file, JSON.stringify(doc));
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/sim-cli.ts', 'replay', file, '--json'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const replayed = JSON.parse(r.stdout);
    assert.equal(replayed.reproduced, true);
    assert.equal(replayed.traceHash, doc.traceHash, 'the browser and Node ran the very same schedule');
    assert.deepEqual(errors, []);
  } finally {
    await close();
    await rm(dir, { recursive: true, force: true });
  }
});
