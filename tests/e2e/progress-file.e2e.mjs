/**
 * The progress file in real Chromium, as a learner carrying progress between two devices: export on
 * one (a real download), import on the other with the keyboard, see what the file holds, Merge (the
 * map shows both devices' work, the code here kept where they differ), Undo (storage exactly as
 * before), Replace, Undo again. Wrong, damaged, foreign, newer and oversized files are refused with
 * the reason and change nothing; a file with a bad part names it and imports the rest. axe in light
 * and dark with the review open.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { SCENARIO_CATALOG } from '../../simulations/lessons/catalog.ts';
import { axeSerious, launchBrowser, openPage, screenshot, urlOf } from './helpers.mjs';

const [FIRST, SECOND, THIRD] = SCENARIO_CATALOG;
const D1 = '0123456789abcdef';
const D2 = 'fedcba9876543210';

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Device A: lesson 1 done with a prediction, one answer, the sorting, code for lessons 1 and 3. */
const DEVICE_A = {
  'eo:progress': JSON.stringify({
    version: 1,
    scenarios: {
      [FIRST.id]: { visited: true, sawOutcome: true, passed: true, explored: true, heldCode: [D1], cleanCode: [D1], predicted: { choice: '1', actual: '2', actualText: '2 — order 1042 got 2 receipts' } },
    },
    quizzes: { 'receipt-redelivery-what-happens': { choice: 'redelivered', correct: true } },
    sorting: { choices: {}, correct: 3, total: 8 },
  }),
  [`eo:code:${FIRST.id}`]: '// device A, lesson 1\n',
  [`eo:code:${THIRD.id}`]: '// device A, lesson 3\n',
};

/** Device B: lesson 2 started, a wrong answer, its own code for lesson 1. */
const DEVICE_B = {
  'eo:progress': JSON.stringify({
    version: 1,
    scenarios: { [SECOND.id]: { visited: true, heldCode: [D2], passed: true } },
    quizzes: { 'receipt-redelivery-what-happens': { choice: 'other', correct: false, revealed: true } },
  }),
  [`eo:code:${FIRST.id}`]: '// device B, lesson 1\n',
};

async function seed(page, entries) {
  // A page of the site that keeps no progress of its own (a bare SVG would 404 its favicon).
  await page.goto(urlOf('/try/'));
  await page.evaluate((e) => {
    localStorage.clear();
    for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v);
  }, entries);
  await page.goto(urlOf('/'));
  await page.getByTestId('progress-file').waitFor();
}

/** This browser's stored entries, the progress record parsed (its meaning, not its key order). */
const storage = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      Object.keys(localStorage)
        .filter((k) => k.startsWith('eo:'))
        .map((k) => [k, k === 'eo:progress' ? JSON.parse(localStorage.getItem(k)) : localStorage.getItem(k)]),
    ),
  );

/** Choose `file` ({ name, mimeType, buffer }) with the Import button, pressed from the keyboard. */
async function importFile(page, file) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('import-progress').focus();
  await page.keyboard.press('Enter');
  await (await chooser).setFiles(file);
}

const json = (name, value) => ({ name, mimeType: 'application/json', buffer: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)) });

test('export on one device, import on another: merge, undo, replace, undo — by keyboard', { timeout: 120_000 }, async () => {
  const a = await openPage(browser);
  const b = await openPage(browser, { colorScheme: 'dark' });
  try {
    await seed(a.page, DEVICE_A);
    const download = a.page.waitForEvent('download');
    await a.page.getByTestId('export-progress').click();
    const file = await download;
    assert.match(file.suggestedFilename(), /^effectively-once-progress-\d{4}-\d{2}-\d{2}\.json$/);
    const text = await readFile(await file.path(), 'utf8');
    const exported = JSON.parse(text);
    assert.equal(exported.format, 'effectively-once-progress');
    assert.equal(exported.version, 1);
    assert.deepEqual(exported.progress, JSON.parse(DEVICE_A['eo:progress']), 'progress, predictions, answers and sorting, as stored');
    assert.deepEqual(exported.code, { [FIRST.id]: DEVICE_A[`eo:code:${FIRST.id}`], [THIRD.id]: DEVICE_A[`eo:code:${THIRD.id}`] }, 'every lesson’s saved code');

    const { page, errors } = b;
    await seed(page, DEVICE_B);
    const before = await storage(page);
    await importFile(page, json('progress.json', text));
    const review = page.getByTestId('import-review');
    await review.waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H3' && /Import progress\.json\?/.test(document.activeElement.textContent ?? ''));
    const holds = await page.getByTestId('import-holdings').innerText();
    assert.match(holds, /1 lesson done, 0 more started/);
    assert.match(holds, /1 prediction/);
    assert.match(holds, /1 answer to questions \(1 right\)/);
    assert.match(holds, /the sorting exercise/);
    assert.match(holds, /saved code for 2 lessons/);
    assert.match(await review.innerText(), new RegExp(`Your code here is kept for “${escape(FIRST.title)}”`));
    assert.deepEqual(await axeSerious(page), [], 'no serious axe violations with the review open (dark)');
    await screenshot(page, 'progress-import-review-dark');
    assert.deepEqual(await storage(page), before, 'nothing changes before the learner chooses');

    // Merge, from the keyboard: Tab from the heading reaches Merge first.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Merge');
    await page.keyboard.press('Enter');
    await page.getByTestId('import-done').waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Undo');
    const merged = await storage(page);
    const mp = merged['eo:progress'];
    assert.equal(mp.scenarios[FIRST.id].explored, true, 'lesson 1 done, from the file');
    assert.deepEqual(mp.scenarios[SECOND.id], JSON.parse(DEVICE_B['eo:progress']).scenarios[SECOND.id], 'lesson 2 as it was here');
    assert.deepEqual(mp.quizzes['receipt-redelivery-what-happens'], { choice: 'redelivered', correct: true }, 'the answer that counts most');
    assert.equal(mp.sorting.correct, 3);
    assert.equal(merged[`eo:code:${FIRST.id}`], DEVICE_B[`eo:code:${FIRST.id}`], 'the code here is kept');
    assert.equal(merged[`eo:code:${THIRD.id}`], DEVICE_A[`eo:code:${THIRD.id}`], 'code for a lesson with none here comes from the file');
    assert.equal(await page.getByTestId('lesson-link').first().getAttribute('data-state'), 'done', 'the map shows lesson 1 done');
    assert.deepEqual(await axeSerious(page), [], 'no serious axe violations after the merge');

    await page.keyboard.press('Enter');
    await page.getByTestId('import-undone').waitFor();
    assert.deepEqual(await storage(page), before, 'Undo puts back exactly what was here');
    assert.equal(await page.getByTestId('lesson-link').first().getAttribute('data-state'), 'new');

    // Replace: exactly the file's progress and code; Undo again.
    await importFile(page, json('progress.json', text));
    await page.getByTestId('import-review').getByRole('button', { name: 'Replace' }).click();
    await page.getByTestId('import-done').waitFor();
    const replaced = await storage(page);
    assert.deepEqual(replaced['eo:progress'], exported.progress);
    assert.equal(replaced[`eo:code:${FIRST.id}`], DEVICE_A[`eo:code:${FIRST.id}`]);
    assert.equal(replaced[`eo:code:${THIRD.id}`], DEVICE_A[`eo:code:${THIRD.id}`]);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByTestId('import-undone').waitFor();
    assert.deepEqual(await storage(page), before, 'Undo after Replace puts back exactly what was here');
    assert.deepEqual([...a.errors, ...errors], [], 'no page or console errors');
  } finally {
    await a.close();
    await b.close();
  }
});

const REFUSED = [
  ['not JSON', json('notes.json', 'this is { not json'), /not JSON, or it was damaged or cut short/],
  ['cut short', json('cut.json', '{"format":"effectively-once-progress","version":1,"progress":{"ver'), /not JSON, or it was damaged or cut short/],
  ['an image', { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]) }, /not JSON/],
  ['foreign JSON', json('package.json', { name: 'something', version: '1.0.0' }), /not an Effectively Once progress file/],
  ['a newer format', json('future.json', { format: 'effectively-once-progress', version: 2, progress: { version: 1 } }), /newer version of the course \(format version 2\)/],
  ['no progress in it', json('empty.json', { format: 'effectively-once-progress', version: 1 }), /damaged: it holds no progress record/],
  ['an empty file', json('empty.json', ''), /This file is empty/],
  ['too large', json('huge.json', 'x'.repeat(6_000_000)), /This file is 6\.0 MB; a progress file is at most 5\.0 MB/],
];

test('wrong, damaged, foreign, newer and oversized files are refused with the reason, and nothing changes', { timeout: 120_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    await seed(page, DEVICE_B);
    const before = await storage(page);
    for (const [what, file, reason] of REFUSED) {
      await importFile(page, file);
      const alert = page.getByTestId('import-error');
      await alert.waitFor();
      const text = await alert.innerText();
      assert.match(text, /Nothing was imported\./, what);
      assert.match(text, reason, what);
      assert.equal(await page.getByTestId('import-review').count(), 0, `${what}: no Merge or Replace offered`);
      assert.deepEqual(await storage(page), before, `${what}: storage unchanged`);
      await alert.getByRole('button', { name: 'Dismiss' }).click();
      await alert.waitFor({ state: 'detached' });
    }
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});

test('a file with bad parts names them and imports the rest', { timeout: 60_000 }, async () => {
  const { close, page, errors } = await openPage(browser);
  try {
    await seed(page, {});
    const file = {
      format: 'effectively-once-progress',
      version: 1,
      progress: { version: 1, scenarios: { [FIRST.id]: { visited: true, heldCode: 5 }, 'no-such-lesson': { visited: true } }, quizzes: {}, sorting: 5 },
      code: { [SECOND.id]: { not: 'text' }, [THIRD.id]: '// ok\n', elsewhere: '// x' },
    };
    await importFile(page, json('mixed.json', file));
    const dropped = page.getByTestId('import-dropped');
    await dropped.waitFor();
    const text = await dropped.innerText();
    for (const part of [/which versions of your code held/, /A lesson this course does not have \(“no-such-lesson”\)/, /The sorting exercise/, new RegExp(`Saved code for “${escape(SECOND.title)}”: it is not text`), /Saved code for a lesson this course does not have \(“elsewhere”\)/]) {
      assert.match(text, part);
    }
    await page.getByRole('button', { name: 'Merge' }).click();
    await page.getByTestId('import-done').waitFor();
    const stored = await storage(page);
    assert.deepEqual(stored['eo:progress'].scenarios, { [FIRST.id]: { visited: true } });
    assert.equal(stored[`eo:code:${THIRD.id}`], '// ok\n');
    assert.equal(stored[`eo:code:${SECOND.id}`], undefined);
    assert.deepEqual(errors, [], 'no page or console errors');
  } finally {
    await close();
  }
});
