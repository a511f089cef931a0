/**
 * Embeds seen from a host page in real Chromium: public/embed-example.html frames the lab and a
 * question and logs what they post. Ready arrives from both; a starter run reports "violated",
 * the learner's own correct code reports "held" and "exercise-passed"; a checked answer reports
 * "quiz-answered". Embeds told another origin (or a wildcard) send this page nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeSerious, launchBrowser, openPage, screenshot, setColorScheme, urlOf, waitRunnable, E2E_WAIT_MS } from './helpers.mjs';



let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const events = (page) => page.evaluate(() => window.embedEvents);

/** Wait for an event whose fields include `fields` (compared in the page: its CSP allows no eval). */
async function waitEvent(page, fields, timeout = 60_000) {
  await page.waitForFunction(
    (wanted) => window.embedEvents.some((e) => Object.entries(wanted).every(([key, value]) => e[key] === value)),
    fields,
    { timeout },
  );
}

async function frameOf(page, pattern) {
  // Up to E2E_WAIT_MS, a frame's address checked every 100 ms.
  for (let i = 0; i < E2E_WAIT_MS / 100; i++) {
    const frame = page.frames().find((f) => pattern.test(f.url()));
    if (frame) return frame;
    await page.waitForTimeout(100);
  }
  throw new Error(`no frame matches ${pattern}`);
}

test('the example host page receives ready, run-finished, exercise-passed, explore-finished, exercise-done and quiz-answered', { timeout: 240_000 }, async () => {
  const { context, close, page, errors } = await openPage(browser);
  try {
    await page.setViewportSize({ width: 1280, height: 1000 });
    // Canvas's frame-sizing messages, which the example host ignores (they carry no source field).
    await page.addInitScript(() => {
      window.ltiResizes = [];
      window.addEventListener('message', (event) => {
        if (event.data?.subject === 'lti.frameResize') window.ltiResizes.push(event.data.height);
      });
    });
    await page.goto(urlOf('/embed-example.html'));
    await waitEvent(page, { type: 'ready', view: 'lab' });
    await waitEvent(page, { type: 'ready', view: 'quiz' });
    const ready = (await events(page)).filter((e) => e.type === 'ready');
    assert.deepEqual(ready.map((e) => e.scenario).sort(), ['receipt-redelivery', null].sort());
    for (const e of await events(page)) {
      assert.equal(e.source, 'effectively-once');
      assert.equal(e.version, 1);
    }

    const lab = await frameOf(page, /\/embed\/receipt-redelivery\//);
    // No site navigation inside the frame.
    assert.equal(await lab.locator('body > header').isVisible(), false, 'the site header is hidden in the embed');
    assert.match(await lab.getByTestId('embed-target').innerText(), new RegExp(`Reports to ${new URL(urlOf('/')).origin}`));
    await waitRunnable(lab);

    // The starter breaks the invariant.
    await lab.getByRole('button', { name: 'Starter', exact: true }).click();
    await lab.getByLabel('Speed').selectOption('instant');
    await lab.getByRole('button', { name: 'Run', exact: true }).click();
    await waitEvent(page, { type: 'run-finished', mode: 'starter' });
    const starter = (await events(page)).find((e) => e.type === 'run-finished');
    assert.equal(starter.verdict, 'violated');
    assert.equal(starter.scenario, 'receipt-redelivery');
    assert.equal('code' in starter, false, "the code that ran stays in the tab: it is not sent to the host page");
    assert.ok(starter.invariants.some((i) => !i.held), 'a broken invariant is reported');
    assert.ok(Array.isArray(starter.faults) && starter.faults.length > 0);
    assert.ok(starter.ledger && typeof starter.ledger === 'object', 'the ledger comes along');
    assert.equal((await events(page)).some((e) => e.type === 'exercise-passed'), false, 'the starter passes nothing');

    // The learner's own (correct) code on the demonstration plan passes the exercise.
    await lab.getByRole('button', { name: 'Solution', exact: true }).click();
    const solution = await lab.evaluate(() => window.__eoLab.getCode());
    await lab.evaluate((t) => window.__eoLab.setCode(t), `// my answer\n${solution}`);
    await lab.getByRole('button', { name: 'Run', exact: true }).click();
    await waitEvent(page, { type: 'exercise-passed' });
    const yours = (await events(page)).find((e) => e.type === 'run-finished' && e.mode === 'yours');
    assert.equal(yours.verdict, 'held');
    assert.ok(yours.invariants.every((i) => i.held));
    // Explored: the host hears how many of the schedules broke an invariant.
    await lab.getByRole('button', { name: 'Explore', exact: true }).click();
    await waitEvent(page, { type: 'explore-finished' });
    const explored = (await events(page)).find((e) => e.type === 'explore-finished');
    assert.deepEqual(
      { scenario: explored.scenario, mode: explored.mode, violations: explored.violations, errors: explored.errors, complete: explored.runs === explored.requested && explored.runs > 0 },
      { scenario: 'receipt-redelivery', mode: 'yours', violations: 0, errors: 0, complete: true },
    );
    assert.equal('code' in explored, false, 'the explored code stays in the tab');
    // The same code passed and explored clean: the exercise is done, as the course counts a lesson.
    await waitEvent(page, { type: 'exercise-done' });
    assert.deepEqual((await events(page)).filter((e) => e.type === 'exercise-done').map(({ scenario, runs }) => ({ scenario, runs })), [{ scenario: 'receipt-redelivery', runs: 200 }]);

    // The question.
    const quiz = await frameOf(page, /\/embed\/quiz\/lesson-receipt-key\//);
    await quiz.getByRole('radio').first().check();
    await quiz.getByRole('button', { name: 'Check' }).click();
    await waitEvent(page, { type: 'quiz-answered' });
    const answer = (await events(page)).find((e) => e.type === 'quiz-answered');
    const state = await quiz.getByTestId('quiz-card').getAttribute('data-state');
    assert.equal(answer.questionId, 'lesson-receipt-key');
    assert.equal(answer.correct, state === 'correct', 'the event agrees with what the card shows');
    assert.equal(typeof answer.choiceId, 'string');
    // "See it happen" opens the lab in a new tab; the frame stays the question.
    const [popup] = await Promise.all([context.waitForEvent('page'), quiz.getByRole('link', { name: /See it happen/ }).click()]);
    await popup.waitForLoadState('domcontentloaded');
    assert.match(popup.url(), /\/lab\/[a-z-]+\/#v1\./);
    await popup.close();
    assert.match(quiz.url(), /\/embed\/quiz\/lesson-receipt-key\//);
    assert.equal((await events(page)).every((e) => e.source === 'effectively-once' && e.version === 1), true);

    // The frames are as tall as what they show: the host sized them from the embeds' resize messages.
    for (const [id, pattern] of [['lab', /\/embed\/receipt-redelivery\//], ['quiz', /\/embed\/quiz\//]]) {
      const frame = await frameOf(page, pattern);
      const measure = () => {
        const el = document.querySelector('[data-chrome="embed"]');
        return { content: Math.ceil(el.getBoundingClientRect().bottom), view: window.innerHeight, scrolls: document.documentElement.scrollHeight > window.innerHeight + 1 };
      };
      // The resize message and the host's new height take a moment on a loaded machine: wait for
      // the fit, then assert on what was measured (a frame that never fits fails with its figures).
      await frame
        .waitForFunction(() => {
          const el = document.querySelector('[data-chrome="embed"]');
          return el && window.innerHeight >= Math.ceil(el.getBoundingClientRect().bottom) && document.documentElement.scrollHeight <= window.innerHeight + 1;
        }, undefined, { timeout: E2E_WAIT_MS })
        .catch(() => {});
      const inner = await frame.evaluate(measure);
      const sized = (await events(page)).filter((e) => e.type === 'resize');
      assert.ok(sized.length >= 2, 'both embeds reported their height');
      // Each resize comes with an lti.frameResize of the same height (the pair arrives as two messages).
      await page.waitForFunction(() => {
        const heights = (list) => JSON.stringify([...list].sort((a, b) => a - b));
        return window.ltiResizes.length > 0 && heights(window.ltiResizes) === heights(window.embedEvents.filter((e) => e.type === 'resize').map((e) => e.height));
      }, undefined, { timeout: E2E_WAIT_MS });
      assert.ok(inner.view >= inner.content, `${id}: the frame (${inner.view} px) holds its content (${inner.content} px)`);
      assert.equal(inner.scrolls, false, `${id}: no scrollbar inside the frame`);
    }
    const log = await page.getByTestId('host-log').innerText();
    assert.match(log, /run-finished · receipt-redelivery · starter code, seed \d+: violated/);
    assert.match(log, /exercise-passed/);
    assert.match(log, /explore-finished · receipt-redelivery · your code: 0 of \d+ schedules violated/);
    assert.match(log, /quiz-answered/);
    await screenshot(page, 'embed-example-host');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('embeds told another origin, or a wildcard, send the host nothing', { timeout: 120_000 }, async () => {
  const { close, page } = await openPage(browser);
  try {
    await page.goto(urlOf('/embed-example.html'));
    // Both of the page's own embeds have said ready, so any later message would come from the new frames.
    await waitEvent(page, { type: 'ready', view: 'quiz' });
    await waitEvent(page, { type: 'ready', view: 'lab' });
    // Every message from the new frames, whatever it says (the page's own embeds go on reporting their height).
    await page.evaluate(() => {
      window.fromNewFrames = [];
      const frames = [];
      window.addEventListener('message', (event) => {
        if (frames.some((f) => f.contentWindow === event.source)) window.fromNewFrames.push(event.data);
      });
      for (const [id, origin] of [['other', 'http://elsewhere.invalid'], ['wild', '*']]) {
        const f = document.createElement('iframe');
        f.id = id;
        f.src = `/embed/quiz/lesson-receipt-key/?parentOrigin=${encodeURIComponent(origin)}`;
        frames.push(f);
        document.body.append(f);
      }
    });
    const other = await frameOf(page, /parentOrigin=http%3A%2F%2Felsewhere/);
    const wild = await frameOf(page, /parentOrigin=\*|parentOrigin=%2A/);
    await other.getByTestId('embed-target').getByText('Reports to http://elsewhere.invalid').waitFor();
    await wild.getByTestId('embed-target').getByText(/parentOrigin must be an origin/).waitFor();
    // Both frames are live and would have sent "ready" by now; answer the question in one, too.
    await other.getByRole('radio').first().check();
    await other.getByRole('button', { name: 'Check' }).click();
    await other.locator('[data-testid="quiz-card"]:is([data-state="correct"], [data-state="wrong"])').waitFor();
    await page.waitForTimeout(1000);
    assert.deepEqual(await page.evaluate(() => window.fromNewFrames), [], 'no message reached this origin');
  } finally {
    await close();
  }
});

// One load of each embed: checked in light, then in dark (it follows the system's scheme without a
// reload: CSS, and Monaco's theme).
test('the embeds have no serious or critical axe violations, light and dark', { timeout: 120_000 }, async () => {
  const { close, page } = await openPage(browser);
  try {
    for (const where of ['/embed/receipt-redelivery/', '/embed/quiz/lesson-receipt-key/']) {
      await page.goto(urlOf(where));
      await page.getByTestId('embed-target').getByText('Not reporting to a host page').waitFor();
      if (where === '/embed/receipt-redelivery/') {
        // As in the lab's own axe test: once the editor has replaced its static preview.
        await waitRunnable(page.mainFrame());
        await page.locator('[data-testid="code-editor"][data-editor-ready="true"]').waitFor({ timeout: E2E_WAIT_MS });
      }
      for (const colorScheme of ['light', 'dark']) {
        await setColorScheme(page, colorScheme);
        const bad = await axeSerious(page);
        assert.deepEqual(bad, [], `${where} (${colorScheme}): ${JSON.stringify(bad)}`);
        // Moderate, but a screen reader's first landmark: the embed names itself in an h1.
        assert.equal(await page.getByRole('heading', { level: 1 }).count(), 1, `${where} has one h1 (${colorScheme})`);
      }
      await setColorScheme(page, 'light');
    }
  } finally {
    await close();
  }
});
