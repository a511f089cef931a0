/**
 * The course-platform packages in real Chromium, as a platform serves them: each zip is built from
 * the placeholder build (.next-package/, built first when missing or stale), unzipped, and served
 * by this test's own server under a deep Moodle-like path. A host page plays the platform:
 * scorm-again's real SCORM 1.2 / 2004 runtime, saving what it is given on every commit as an LMS
 * would; a small xAPI endpoint that records cmi5 statements; jschannel, as Open edX's JSInput
 * calls a problem on another origin. A learner passes lesson 1 (the solution as "Your code", held
 * on the demonstration, explored clean, one question of two right); the runtime holds passed and
 * the score; a fresh browser resumes from the suspend data alone; no request leaves the package.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { unzipSync } from 'fflate';
import { buildPackage, flagsFor } from '../../scripts/package-course.ts';
import { ensurePackageBuild, packagedFiles } from '../../scripts/package-site.ts';
import { packSuspendData } from '../../components/platform/suspend-data.ts';
import { E2E_WAIT_MS, launchBrowser, openPage, screenshot, waitRunnable, waitVerdict } from './helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LESSON = 'receipt-redelivery';
const QUESTION = 'receipt-redelivery-what-happens';
/** Where each package is served: deep, as Moodle's pluginfile.php serves SCORM content. */
const BASES = {
  scorm12: '/moodle/pluginfile.php/27/mod_scorm/content/3/',
  scorm2004: '/moodle/pluginfile.php/28/mod_scorm/content/1/',
  cmi5: '/lms/courses/9/cmi5/au-content/v2/',
};
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.txt': 'text/plain' };

const sites = {};
/** What the platforms kept: SCORM values per runtime, and every cmi5 statement. */
const lms = { scorm: {}, statements: [], waiters: [] };

/** Resolves when a statement whose verb ends with `verb` has been recorded (or at once if one has). */
function statementArrives(verb) {
  const found = () => lms.statements.find((s) => s.verb?.id?.endsWith(`/${verb}`));
  return found() ? Promise.resolve(found()) : new Promise((resolve) => lms.waiters.push(() => found() && (resolve(found()), true)));
}
let server;
let origin;
let browser;

const LAUNCH_DATA = { contextTemplate: { contextActivities: { grouping: [{ id: 'urn:effectively-once:course' }] }, extensions: { 'https://w3id.org/xapi/cmi5/context/extensions/sessionid': 'session-1' } }, launchMode: 'Normal', moveOn: 'Passed' };

function hostPage(version) {
  const [global, ctor, file] = version === '1.2' ? ['API', 'Scorm12API', 'scorm12.min.js'] : ['API_1484_11', 'Scorm2004API', 'scorm2004.min.js'];
  const keep =
    version === '1.2'
      ? ['cmi.suspend_data', 'cmi.core.lesson_status', 'cmi.core.score.raw']
      : ['cmi.suspend_data', 'cmi.completion_status', 'cmi.success_status', 'cmi.score.scaled', 'cmi.score.raw'];
  const base = version === '1.2' ? BASES.scorm12 : BASES.scorm2004;
  return `<!DOCTYPE html><meta charset="utf-8"><link rel="icon" href="data:,"><title>LMS ${version}</title>
<script src="/lms/scorm-again/${file}"></script>
<script type="module">
  const saved = await (await fetch('/lms/state/${version}')).json();
  const api = new ${ctor}({ autocommit: false, logLevel: 5 });
  if (saved) api.loadFromFlattenedJSON(saved);
  window.${global} = api;
  window.lmsCommits = 0;
  const keep = ${JSON.stringify(keep)};
  api.on('${version === '1.2' ? 'LMSCommit' : 'Commit'}', () => {
    window.lmsCommits++;
    const values = Object.fromEntries(keep.map((k) => [k, api.getCMIValue(k)]));
    fetch('/lms/state/${version}', { method: 'POST', body: JSON.stringify(values) });
  });
  const frame = document.createElement('iframe');
  frame.style.cssText = 'width:1200px;height:860px;border:0';
  frame.src = '${base}sco/${LESSON}/index.html';
  document.body.append(frame);
</script>`;
}

const EDX_HOST = `<!DOCTYPE html><meta charset="utf-8"><link rel="icon" href="data:,"><title>edX</title>
<script src="/lms/jschannel.js"></script>
<iframe id="problem" style="width:1200px;height:860px;border:0" src="${BASES.cmi5}edx/${LESSON}/index.html"></iframe>
<script>
  const channel = Channel.build({ window: document.getElementById('problem').contentWindow, origin: '*', scope: 'JSInput' });
  window.callProblem = (method, params) => new Promise((resolve, reject) => channel.call({ method, params, success: resolve, error: (e, m) => reject(new Error(e + ': ' + m)) }));
</script>`;

async function handle(req, res) {
  const url = new URL(req.url, origin);
  const body = req.method === 'POST' || req.method === 'PUT' ? await new Promise((r) => { let b = ''; req.on('data', (c) => (b += c)); req.on('end', () => r(b)); }) : '';
  const send = (status, text, type = 'application/json') => {
    res.writeHead(status, { 'Content-Type': type, 'X-Experience-API-Version': '1.0.3' });
    res.end(text);
  };
  if (url.pathname === '/lms/scorm12.html') return send(200, hostPage('1.2'), 'text/html');
  if (url.pathname === '/lms/scorm2004.html') return send(200, hostPage('2004'), 'text/html');
  if (url.pathname === '/lms/edx.html') return send(200, EDX_HOST, 'text/html');
  if (url.pathname === '/lms/jschannel.js') return send(200, await readFile(path.join(root, 'node_modules/jschannel/src/jschannel.js')), 'text/javascript');
  if (url.pathname.startsWith('/lms/scorm-again/')) return send(200, await readFile(path.join(root, 'node_modules/scorm-again/dist', path.basename(url.pathname))), 'text/javascript');
  const state = /^\/lms\/state\/(.+)$/.exec(url.pathname);
  if (state) {
    if (req.method === 'POST') lms.scorm[state[1]] = JSON.parse(body);
    return send(200, JSON.stringify(lms.scorm[state[1]] ?? null));
  }
  // The cmi5 platform's side: the token, the launch data, and the statements it records.
  if (url.pathname === '/xapi/fetch' && req.method === 'POST') return send(200, JSON.stringify({ 'auth-token': 'dG9rZW4=' }));
  if (url.pathname === '/xapi/activities/state') return url.searchParams.get('stateId') === 'LMS.LaunchData' ? send(200, JSON.stringify(LAUNCH_DATA)) : send(404, '{}');
  if (url.pathname === '/xapi/agents/profile') return send(404, '{}');
  if (url.pathname === '/xapi/statements' && (req.method === 'POST' || req.method === 'PUT')) {
    const parsed = JSON.parse(body);
    lms.statements.push(...(Array.isArray(parsed) ? parsed : [parsed]));
    lms.waiters = lms.waiters.filter((settle) => !settle());
    return send(200, JSON.stringify([]));
  }
  for (const [name, base] of Object.entries(BASES)) {
    if (!url.pathname.startsWith(base)) continue;
    const file = decodeURIComponent(url.pathname.slice(base.length)) || 'index.html';
    const data = sites[name].get(file.endsWith('/') ? `${file}index.html` : file);
    if (!data) return send(404, 'not in the package', 'text/plain');
    return send(200, data, TYPES[path.extname(file)] ?? 'application/octet-stream');
  }
  send(404, 'outside every package', 'text/plain');
}

before(async () => {
  const dir = ensurePackageBuild(root);
  for (const format of ['scorm12', 'scorm2004', 'cmi5']) {
    const { zip } = buildPackage(packagedFiles(dir, flagsFor(format)), format === 'cmi5' ? { format } : { format, lesson: LESSON });
    sites[format] = new Map(Object.entries(unzipSync(zip)));
  }
  server = createServer((req, res) => handle(req, res).catch((e) => { res.writeHead(500); res.end(String(e)); }));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await new Promise((r) => (server ? server.close(r) : r()));
});

/** Every request of the context that left both the package at `base` and the platform's own pages. */
function outside(requests, base) {
  return requests.filter((u) => !u.startsWith('blob:') && !u.startsWith('data:') && !u.startsWith(`${origin}${base}`) && !u.startsWith(`${origin}/lms/`) && !u.startsWith(`${origin}/xapi/`));
}

/** Every response of `context` (pages, frames and workers) with an HTTP error status. */
function failedResponses(context) {
  const failed = [];
  context.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
  return failed;
}

/** The framed SCO of the host page, once its document has loaded. */
async function scoFrame(page) {
  await page.waitForFunction(() => document.querySelector('iframe')?.contentDocument?.readyState === 'complete', undefined, { timeout: 120_000 });
  const frame = page.frames().find((f) => f !== page.mainFrame());
  assert.ok(frame, 'the host page frames the SCO');
  return frame;
}

/** Pass lesson 1 in `target` (a page or frame) as a learner: one question right, the solution as "Your code", run, explore. */
async function passLesson(target) {
  const button = (name) => target.getByRole('button', { name, exact: true });
  // The question first: cmi5's passed statement carries the score of the moment the lab is done.
  const quiz = target.locator(`[data-testid="quiz-card"][data-question="${QUESTION}"]`);
  await quiz.getByRole('radio', { name: /queue delivers the message again/ }).check();
  await quiz.getByRole('button', { name: 'Check' }).click();
  await target.locator(`[data-question="${QUESTION}"][data-state="correct"]`).waitFor();
  await waitRunnable(target, 120_000);
  await button('Solution').click();
  const solution = await target.evaluate(() => window.__eoLab.getCode());
  await target.evaluate((t) => window.__eoLab.setCode(`// my fix\n${t}`), solution);
  await target.getByLabel('Speed').selectOption('instant');
  await button('Run').click();
  await waitVerdict(target, /Held: every invariant kept/, 120_000).catch(async (error) => {
    const state = await target.evaluate(() => ({ status: document.querySelector('[data-testid="lab-status"]')?.textContent, verdict: document.querySelector('[aria-label="Verdict"]')?.textContent?.slice(0, 200) }));
    throw new Error(`the run of the solution did not hold: lab status ${JSON.stringify(state.status)}, verdict ${JSON.stringify(state.verdict)} (${error.message})`);
  });
  await target.locator('[data-testid="passed-chip"][data-done="true"]').waitFor({ timeout: 120_000 });
  await button('Explore').click();
  await target.locator('[data-testid="done-chip"]').waitFor({ timeout: 180_000 });
}

for (const [version, format] of [['1.2', 'scorm12'], ['2004', 'scorm2004']]) {
  test(`SCORM ${version}: a learner passes lesson 1 under a deep path, the runtime holds it, a fresh browser resumes from suspend_data`, { timeout: 420_000 }, async () => {
    const global = version === '1.2' ? 'API' : 'API_1484_11';
    const first = await openPage(browser, { fresh: true });
    const failed = failedResponses(first.context);
    try {
      await first.page.goto(`${origin}/lms/${format}.html`);
      const sco = await scoFrame(first.page);
      await sco.locator('[data-testid="platform-status"][data-platform="scorm"]').waitFor({ timeout: 120_000 });
      await passLesson(sco);
      // The runtime's own values, once the content has committed them.
      const expected = version === '1.2' ? { status: 'passed', raw: '50' } : { completion: 'incomplete', success: 'passed', scaled: '0.5', raw: '50' };
      await first.page.waitForFunction(
        ([g, v, want]) => {
          const cmi = window[g].cmi;
          const got = v === '1.2' ? { status: cmi.core.lesson_status, raw: cmi.core.score.raw } : { completion: cmi.completion_status, success: cmi.success_status, scaled: String(cmi.score.scaled), raw: String(cmi.score.raw) };
          return JSON.stringify(got) === JSON.stringify(want);
        },
        [global, version, expected],
        { timeout: E2E_WAIT_MS },
      );
      const suspend = await first.page.evaluate((g) => window[g].cmi.suspend_data, global);
      assert.match(suspend, /^eo1\./);
      assert.ok(suspend.length <= 4096, `suspend data fits SCORM 1.2 (${suspend.length} characters)`);
      // The lesson passed with 1 of 2 questions: in 2004 it is passed but not completed.
      await screenshot(first.page, `platform-scorm${version.replace('.', '')}-passed`);
      assert.deepEqual(outside(first.requests, BASES[format]), [], 'no request outside the package');
      assert.deepEqual(failed, [], 'no request failed');
      assert.deepEqual(first.errors, []);
      // The platform keeps what the last commit gave it, as an LMS would.
      await first.page.waitForFunction((s) => window.lmsCommits > 0 && s !== '', suspend);
      await first.page.waitForFunction(async ([v, s]) => (await (await fetch(`/lms/state/${v}`)).json())?.['cmi.suspend_data'] === s, [version, suspend], { timeout: E2E_WAIT_MS });
    } finally {
      await first.context.close();
    }

    // A fresh browser (nothing in its storage): the lesson, its answer and the code come back from suspend_data alone.
    const second = await openPage(browser, { fresh: true });
    try {
      await second.page.goto(`${origin}/lms/${format}.html`);
      const sco = await scoFrame(second.page);
      await sco.locator('[data-testid="done-chip"]').waitFor({ timeout: 120_000 });
      await sco.locator(`[data-question="${QUESTION}"][data-state="correct"]`).waitFor();
      await waitRunnable(sco, 120_000);
      assert.match(await sco.evaluate(() => window.__eoLab.getCode()), /^\/\/ my fix\n/);
      const status = await second.page.evaluate((g) => (g === 'API' ? window.API.cmi.core.lesson_status : window.API_1484_11.cmi.success_status), global);
      assert.equal(status, 'passed');
      assert.deepEqual(outside(second.requests, BASES[format]), [], 'no request outside the package');
    } finally {
      await second.context.close();
    }
  });
}

test('cmi5: launched with its parameters the lab sends initialized, passed with the score; launched without, nothing', { timeout: 420_000 }, async () => {
  lms.statements.length = 0;
  const { context, page, requests, errors } = await openPage(browser, { fresh: true });
  const failed = failedResponses(context);
  try {
    // Without launch parameters: the page works and says nothing is recorded.
    await page.goto(`${origin}${BASES.cmi5}sco/${LESSON}/index.html`);
    await page.locator('[data-testid="platform-status"][data-platform="standalone"]').waitFor({ timeout: 120_000 });
    const params = new URLSearchParams({
      endpoint: `${origin}/xapi/`,
      fetch: `${origin}/xapi/fetch`,
      actor: JSON.stringify({ objectType: 'Agent', account: { homePage: origin, name: 'learner-1' } }),
      registration: '6f1c3a9e-2b4d-4c1e-9a7f-0d2e5b8c1a34',
      activityId: `urn:effectively-once:au:${LESSON}`,
    });
    await page.goto(`${origin}${BASES.cmi5}sco/${LESSON}/index.html?${params}`);
    await page.locator('[data-testid="platform-status"][data-platform="cmi5"]').waitFor({ timeout: 120_000 });
    assert.deepEqual(lms.statements.map((s) => s.verb.id.split('/').at(-1)), ['initialized'], 'the launch without parameters sent nothing; this one initialized');
    await passLesson(page);
    const verbs = () => lms.statements.map((s) => s.verb.id.split('/').at(-1));
    let timer;
    const passed = await Promise.race([
      statementArrives('passed'),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no passed statement within 60 s (got ${verbs().join(', ')})`)), 60_000))),
    ]).finally(() => clearTimeout(timer));
    assert.equal(passed.result.success, true);
    assert.equal(passed.result.score.scaled, 0.5);
    assert.equal(passed.context.registration, '6f1c3a9e-2b4d-4c1e-9a7f-0d2e5b8c1a34');
    assert.equal(passed.object.id, `urn:effectively-once:au:${LESSON}`);
    assert.ok(!verbs().includes('completed'), 'one question of two right: not completed');
    assert.deepEqual(outside(requests, BASES.cmi5), [], 'no request outside the package and the endpoint');
    // The learner preferences document is optional in cmi5: the platform has none here.
    assert.deepEqual(failed.filter((f) => !/^404 .*\/xapi\/agents\/profile\?/.test(f)), [], 'no request failed');
    assert.deepEqual(errors.filter((e) => !/HTTP 404: .*\/xapi\/agents\/profile|status of 404/.test(e)), []);
  } finally {
    await context.close();
  }
});

test('Open edX JSInput: getGrade answers from the lesson’s state, over jschannel and on the window', { timeout: 180_000 }, async () => {
  const { context, page, errors } = await openPage(browser, { fresh: true });
  try {
    await page.goto(`${origin}/lms/edx.html`);
    await page.waitForFunction(() => document.querySelector('#problem')?.contentDocument?.readyState === 'complete', undefined, { timeout: 120_000 });
    const problem = page.frames().find((f) => f.url().includes('/edx/'));
    await problem.getByTestId('edx-lesson').waitFor({ timeout: 120_000 });
    const grade = async () => JSON.parse(await page.evaluate(() => window.callProblem('getGrade', '')));
    assert.deepEqual(await grade(), { lesson: LESSON, passed: false, completed: false, right: 0, total: 2, score: 0 });
    // The state edX stored for this learner: lesson done, one question right on their own.
    const { text } = packSuspendData({ unit: LESSON, scenario: { visited: true, passed: true, explored: true }, quizzes: { [QUESTION]: { choice: 'redelivered', correct: true } } }, 64_000);
    await page.evaluate((s) => window.callProblem('setState', s), text);
    await problem.locator('[data-testid="edx-lesson"][data-generation="1"]').waitFor();
    assert.deepEqual(await grade(), { lesson: LESSON, passed: true, completed: false, right: 1, total: 2, score: 0.5 });
    // The second question, answered right in the page: completed, full score; the window's getGrade agrees.
    const quiz = problem.locator('[data-testid="quiz-card"][data-question="receipt-redelivery-one-schedule"]');
    await quiz.getByRole('radio', { name: /Only that this one schedule is safe/ }).check();
    await quiz.getByRole('button', { name: 'Check' }).click();
    await problem.locator('[data-question="receipt-redelivery-one-schedule"][data-state="correct"]').waitFor();
    const expected = { lesson: LESSON, passed: true, completed: true, right: 2, total: 2, score: 1 };
    await page.waitForFunction(async (want) => (await window.callProblem('getGrade', '')) === want, JSON.stringify(expected));
    assert.deepEqual(JSON.parse(await problem.evaluate(() => window.getGrade())), expected);
    // getState gives back what setState takes.
    const state = await page.evaluate(() => window.callProblem('getState', ''));
    assert.match(state, /^eo1\./);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('inside a package the course map hydrates, prefetches the labs it links to, and requests nothing outside', { timeout: 180_000 }, async () => {
  const { context, page, requests, errors } = await openPage(browser, { fresh: true });
  const failed = failedResponses(context);
  try {
    const prefetched = page.waitForResponse((r) => /\/lab\/receipt-redelivery\/__next\.[^/]*\.txt/.test(r.url()), { timeout: 120_000 });
    await page.goto(`${origin}${BASES.scorm12}index.html`);
    await prefetched;
    // The map's database card boots PGlite: long after the prefetched payloads were read.
    await page.locator('[data-testid="db-status"][data-status="ready"]').waitFor({ timeout: 120_000 });
    assert.deepEqual(outside(requests, BASES.scorm12), [], 'no request outside the package');
    assert.deepEqual(failed, []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
