/**
 * The database worker started by the page's HTML (components/db/early-worker.ts), taken over by
 * the page's worker client, and the build step that writes the script into each page
 * (scripts/early-worker.ts). The browser half is covered end to end in tests/e2e/boot.e2e.mjs.
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EARLY_WORKER_KEY, earlyWorkerScript, isEarlyWasm, takeEarlyWorker, WASM_FROM_PAGE_SUFFIX, type EarlyWorker } from '@/components/db/early-worker';
import { WorkerClient } from '@/components/db/worker-client';
import { WORKER_MARKER, chunksNamedBy, injectEarlyWorker, urlPathOf, wasmNamedBy, withEarlyWorker, workerFactories, workerUrl } from '@/scripts/early-worker';
import { pageNeedsDatabase } from '@/components/db/needs-database';
import { FakeWorker } from './helpers/fake-worker';

/** Run the inline script as a page would, with fake Worker, fetch and window. */
function runInlineScript(script: string) {
  const win: Record<string, unknown> = {};
  const fetched: string[] = [];
  const fetch = (url: string) => {
    fetched.push(url);
    return Promise.resolve({ blob: () => Promise.resolve(new Blob()) });
  };
  new Function('window', 'Worker', 'fetch', 'performance', script)(win, FakeWorker, fetch, { now: () => 42 });
  return { win, fetched };
}

const READY = {
  type: 'ready',
  version: 'PostgreSQL 17.5',
  bootMs: 900,
  operations: 0,
  prebuilt: true,
  timeOrigin: 0,
  timings: { entry: 1, scriptLoaded: 2, wasmCompiled: 3, fsBundleLoaded: 3, dataDirLoaded: 3, pgliteCreated: 4, schemaInstalled: 5, firstQuery: 6 },
};

afterEach(() => {
  FakeWorker.made = [];
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the inline script', () => {
  it('starts the worker, keeps what it says until released, and fetches the scripts it will need', () => {
    const { win, fetched } = runInlineScript(earlyWorkerScript('/w.js#params=x', ['/a.js', '/b.js']));
    expect(FakeWorker.made.map((w) => [w.url, w.options])).toEqual([['/w.js#params=x', { name: 'pglite' }]]);
    expect(fetched).toEqual(['/a.js', '/b.js']);
    const early = win[EARLY_WORKER_KEY] as EarlyWorker;
    expect(early.createdMs).toBe(42);
    const worker = FakeWorker.made[0];
    worker.say(READY);
    worker.fail('boom');
    expect(early.backlog.map((e) => e.type)).toEqual(['message', 'error']);
    early.release();
    worker.say({ type: 'heartbeat' });
    expect(early.backlog).toHaveLength(2);
  });

  describe('compiling PGlite\'s WebAssembly for the worker', () => {
    const wasmBytes = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]); // an empty module
    const performance = { now: () => 42, timeOrigin: 1_000 };
    /** Run the inline script with `fetch` answering the wasm URL as `answer` does, and wait for its one message. */
    async function compiled(answer: (url: string) => unknown, wasm: unknown = WebAssembly) {
      const fetched: string[] = [];
      const fetch = (url: string) => {
        fetched.push(url);
        return url.endsWith('.wasm') ? answer(url) : Promise.resolve({ blob: () => Promise.resolve(new Blob()) });
      };
      new Function('window', 'Worker', 'fetch', 'performance', 'WebAssembly', earlyWorkerScript('/w.js', ['/a.js'], 'pglite', '/m/pglite.x.wasm'))({}, FakeWorker, fetch, performance, wasm);
      const worker = FakeWorker.made.at(-1)!;
      await vi.waitFor(() => expect(worker.sent).toHaveLength(1));
      await new Promise((resolve) => setImmediate(resolve)); // and no second message
      return { worker, fetched, sent: worker.sent as Record<string, unknown>[] };
    }
    const response = (body: Uint8Array<ArrayBuffer>, init: ResponseInit) => Promise.resolve(new Response(body, init));

    it('names the worker so it waits, compiles the module as it streams in and posts it', async () => {
      const { worker, fetched, sent } = await compiled(() => response(wasmBytes, { headers: { 'Content-Type': 'application/wasm' } }));
      expect(worker.options).toEqual({ name: `pglite${WASM_FROM_PAGE_SUFFIX}` });
      expect(fetched).toEqual(['/a.js', '/m/pglite.x.wasm']);
      expect(sent[0]).toEqual({ type: 'early-wasm', module: expect.any(WebAssembly.Module), at: 1_042 });
      expect(isEarlyWasm(sent[0])).toBe(true);
    });

    it('compiles from the bytes when the host does not say application/wasm', async () => {
      const compileStreaming = vi.fn();
      const { sent } = await compiled(() => response(wasmBytes, { headers: { 'Content-Type': 'application/octet-stream' } }), { compileStreaming, compile: WebAssembly.compile });
      expect(compileStreaming).not.toHaveBeenCalled();
      expect(sent[0]).toMatchObject({ module: expect.any(WebAssembly.Module) });
    });

    it('posts why instead, so the worker compiles it itself: an HTTP error, a failed fetch, a bad module, a module that cannot be posted', async () => {
      expect((await compiled(() => response(new Uint8Array(), { status: 404 }))).sent).toEqual([{ type: 'early-wasm', reason: '/m/pglite.x.wasm: HTTP 404', at: 1_042 }]);
      expect((await compiled(() => Promise.reject(new TypeError('Failed to fetch')))).sent).toEqual([{ type: 'early-wasm', reason: 'Failed to fetch', at: 1_042 }]);
      expect((await compiled(() => { throw new Error('refused'); })).sent).toEqual([{ type: 'early-wasm', reason: 'refused', at: 1_042 }]);
      const garbage = await compiled(() => response(new Uint8Array([1, 2, 3]), { headers: { 'Content-Type': 'application/wasm' } }));
      expect(garbage.sent).toEqual([{ type: 'early-wasm', reason: expect.stringMatching(/WebAssembly|magic/), at: 1_042 }]);
      const refusing = class extends FakeWorker {
        override postMessage(message: unknown) {
          if ((message as { module?: unknown }).module) throw new DOMException('could not be cloned', 'DataCloneError');
          super.postMessage(message);
        }
      };
      const fetch = () => response(wasmBytes, { headers: { 'Content-Type': 'application/wasm' } });
      new Function('window', 'Worker', 'fetch', 'performance', earlyWorkerScript('/w.js', [], 'pglite', '/m/pglite.x.wasm'))({}, refusing, fetch, performance);
      const worker = FakeWorker.made.at(-1)!;
      await vi.waitFor(() => expect(worker.sent).toEqual([{ type: 'early-wasm', reason: 'could not be cloned', at: 1_042 }]));
    });

    it('without a module to compile, names the worker plainly and sends it nothing', async () => {
      runInlineScript(earlyWorkerScript('/w.js', [], 'pglite'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(FakeWorker.made[0].options).toEqual({ name: 'pglite' });
      expect(FakeWorker.made[0].sent).toEqual([]);
    });
  });

  it('cannot be closed early by what it embeds, and leaves nothing behind when Worker fails', () => {
    const script = earlyWorkerScript('/w.js#</script><script>alert(1)</script>', ['/x</script>.js']);
    expect(script).not.toMatch(/<\/script/i);
    const win: Record<string, unknown> = {};
    const Refusing = function () {
      throw new Error('SecurityError');
    };
    new Function('window', 'Worker', 'fetch', 'performance', script)(win, Refusing, () => Promise.resolve(), { now: () => 0 });
    expect(win).toEqual({});
  });
});

describe('takeEarlyWorker', () => {
  it('hands the worker over once', () => {
    const { win } = runInlineScript(earlyWorkerScript('/w.js'));
    vi.stubGlobal('window', win);
    const early = takeEarlyWorker();
    expect(early?.worker).toBe(FakeWorker.made[0]);
    expect(takeEarlyWorker()).toBeNull();
  });

  it('ignores something else under its name', () => {
    vi.stubGlobal('window', { [EARLY_WORKER_KEY]: { worker: 1 } });
    expect(takeEarlyWorker()).toBeNull();
  });
});

describe('the worker client with an early worker', () => {
  it('adopts it with what it already said, and starts no worker of its own', () => {
    const { win } = runInlineScript(earlyWorkerScript('/w.js'));
    const early = FakeWorker.made[0];
    early.say(READY); // before the page's code is there to listen
    vi.stubGlobal('window', win);
    const createWorker = vi.fn(() => new FakeWorker('/own.js') as unknown as Worker);
    const client = new WorkerClient({ createWorker });
    expect(createWorker).not.toHaveBeenCalled();
    expect(client.getState()).toMatchObject({ status: 'ready', version: 'PostgreSQL 17.5', earlyWorker: true, workerCreatedMs: 42 });
    // From now on its messages reach the client directly, and no longer pile up in the backlog.
    client.query('SELECT 1').catch(() => {}); // rejected by dispose() below
    expect(early.sent).toEqual([{ type: 'query', id: 1, sql: 'SELECT 1' }]);
    client.dispose();
  });

  it("falls back to its own worker when the HTML's cannot start, and sends it what was asked meanwhile", async () => {
    const { win } = runInlineScript(earlyWorkerScript('/w.js'));
    const early = FakeWorker.made[0];
    vi.stubGlobal('window', win);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const client = new WorkerClient({ createWorker: () => new FakeWorker('/own.js') as unknown as Worker });
    const answer = client.query('SELECT 1');
    early.fail('importScripts failed');
    expect(early.terminated).toBe(true);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/started by the page's HTML\); starting it from the page's code instead/));
    const own = FakeWorker.made[1];
    expect(own.url).toBe('/own.js');
    expect(own.sent).toEqual([{ type: 'query', id: 1, sql: 'SELECT 1' }]);
    own.say(READY);
    own.say({ type: 'result', id: 1, rows: [{ one: 1 }], fields: [] });
    await expect(answer).resolves.toMatchObject({ rows: [{ one: 1 }] });
    expect(client.getState()).toMatchObject({ status: 'ready', earlyWorker: false });
    client.dispose();
  });

  it('reports a failure of its own worker as before (no second fallback)', () => {
    vi.stubGlobal('window', {});
    const client = new WorkerClient({ createWorker: () => new FakeWorker('/own.js') as unknown as Worker });
    FakeWorker.made[0].fail('nope');
    expect(client.getState()).toMatchObject({ status: 'error', error: 'The database worker failed: nope' });
    expect(FakeWorker.made).toHaveLength(1);
    client.dispose();
  });
});

// The shape Next 16.4's Turbopack gives the page's chunk (the worker factory) and the worker's
// entry chunk (its dynamic import), cut down from a real build.
const PAGE_CHUNK =
  '8471,e=>{e.q("/_next/static/media/pglite.worker.1pjfvvm7-gew8.ts")},63291,e=>{e.v(e.r(10914).f("static/chunks/turbopack-worker-1hrsqshz0gfey.js",' +
  '["static/chunks/3q0eqy0uye7z2.js","static/chunks/turbopack-32sabbub9621m.js","static/chunks/turbopack-2u1d16houkiyo.js"]))},68588,e=>{}';
const ENTRY_CHUNK =
  '77752,e=>{e.q("/_next/static/media/pglite-datadir.tar.3aoautp6y8h55.gz")},81841,e=>{e.q("/_next/static/media/pglite.1b6pjm4japji9.data")},' +
  '30001,e=>{e.q("/_next/static/media/pglite.3--hhyg1hx3tq.wasm")},' +
  `let i=e=>\`${WORKER_MARKER}: \${e}\`;},64479,e=>{e.v(t=>Promise.all(["static/chunks/30li0skzathsu.js","static/chunks/01gq16kqirdw4.js"].map(t=>e.l(t))).then(()=>t(83726)))}`;

describe('the build step', () => {
  it("finds Turbopack's worker factory and rebuilds the URL its runtime gives the Worker", () => {
    const [factory] = workerFactories(PAGE_CHUNK);
    expect(factory.bootstrap).toBe('static/chunks/turbopack-worker-1hrsqshz0gfey.js');
    // What Chromium saw `new Worker` called with in that build (logged from the page).
    expect(workerUrl(factory, '/_next/')).toBe(
      '/_next/static/chunks/turbopack-worker-1hrsqshz0gfey.js#params=%5B%5B%22%2F_next%2Fstatic%2Fchunks%2Fturbopack-2u1d16houkiyo.js%22%2C%22%2F_next%2Fstatic%2Fchunks%2Fturbopack-32sabbub9621m.js%22%2C%22%2F_next%2Fstatic%2Fchunks%2F3q0eqy0uye7z2.js%22%5D%2C%22%22%2C%22%2F_next%2F%22%2Cnull%2Cnull%5D',
    );
    expect(chunksNamedBy(factory, [ENTRY_CHUNK], '/_next/')).toEqual(['/_next/static/chunks/30li0skzathsu.js', '/_next/static/chunks/01gq16kqirdw4.js']);
    // The module the page compiles for the worker: the .wasm, not the file bundle or the data directory.
    expect(wasmNamedBy(['self.x=1', ENTRY_CHUNK])).toBe('/_next/static/media/pglite.3--hhyg1hx3tq.wasm');
    expect(wasmNamedBy(['"/_next/static/media/other.abc.wasm"', '"static/media/pglite.data"'])).toBeUndefined();
  });

  it('puts the script right after the charset, once', () => {
    const html = '<!DOCTYPE html><html><head><meta charSet="utf-8"/><title>x</title></head></html>';
    const once = withEarlyWorker(html, { url: '/w.js', prefetch: [] });
    expect(once).toMatch(/^<!DOCTYPE html><html><head><meta charSet="utf-8"\/><script>\(function\(\)\{try\{var w=new Worker\("\/w\.js"/);
    expect(withEarlyWorker(once, { url: '/w.js', prefetch: [] })).toBe(once);
  });

  describe('on an exported site', () => {
    let dir = '';
    afterEach(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('changes only the pages whose first scripts hold the database worker', async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'early-worker-'));
      const chunks = path.join(dir, '_next/static/chunks');
      await mkdir(chunks, { recursive: true });
      await mkdir(path.join(dir, 'lab/receipt-redelivery'), { recursive: true });
      await writeFile(path.join(chunks, 'page.js'), PAGE_CHUNK);
      await writeFile(path.join(chunks, '3q0eqy0uye7z2.js'), ENTRY_CHUNK);
      // Another worker's factory (Monaco's, say): its chunks do not hold the marker.
      await writeFile(path.join(chunks, 'other.js'), 'e.r(1).f("static/chunks/turbopack-worker-1hrsqshz0gfey.js",["static/chunks/monaco.js"])');
      await writeFile(path.join(chunks, 'monaco.js'), 'self.onmessage=()=>{}');
      const page = (src: string) => `<html><head><meta charset="utf-8"><script src="/_next/static/chunks/${src}" async=""></script></head></html>`;
      await writeFile(path.join(dir, 'lab/receipt-redelivery/index.html'), page('page.js'));
      await writeFile(path.join(dir, 'index.html'), page('page.js'));
      await writeFile(path.join(dir, 'plain.html'), page('other.js'));
      // Pages that never use the database load the same layout, factory and all, but are left alone.
      for (const quiet of ['check', 'try', 'embed/quiz/q1']) {
        await mkdir(path.join(dir, quiet), { recursive: true });
        await writeFile(path.join(dir, quiet, 'index.html'), page('page.js'));
      }

      const result = await injectEarlyWorker(dir);
      expect(result.pages).toBe(2);
      for (const quiet of ['check', 'try', 'embed/quiz/q1']) expect(await readFile(path.join(dir, quiet, 'index.html'), 'utf8')).toBe(page('page.js'));
      expect(result.plan?.prefetch).toEqual(['/_next/static/chunks/30li0skzathsu.js', '/_next/static/chunks/01gq16kqirdw4.js']);
      expect(result.plan?.wasm).toBe('/_next/static/media/pglite.3--hhyg1hx3tq.wasm');
      const lab = await readFile(path.join(dir, 'lab/receipt-redelivery/index.html'), 'utf8');
      expect(lab).toContain(EARLY_WORKER_KEY);
      expect(lab).toContain('"/_next/static/media/pglite.3--hhyg1hx3tq.wasm"');
      expect(lab).toContain(`name:"pglite${WASM_FROM_PAGE_SUFFIX}"`);
      expect(await readFile(path.join(dir, 'plain.html'), 'utf8')).toBe(page('other.js'));
      // A second pass changes nothing.
      expect((await injectEarlyWorker(dir)).pages).toBe(0);
    });
  });
});

describe('which pages boot the database as they load', () => {
  it('the course map, the labs, presenter mode and an embedded lab; not the quizzes, "Try it" or an embedded quiz', () => {
    for (const yes of ['/', '/lab/receipt-redelivery/', '/lab/receipt-redelivery', '/demo/dual-write/', '/embed/lease-expiry/']) expect(pageNeedsDatabase(yes), yes).toBe(true);
    for (const no of ['/check/', '/try/', '/embed/quiz/lesson-receipt-key/', '/embed/quiz/', '/404.html', '/lab/', '/lab/x/y/', '/lab/no-such/', '/demo/receipt-redelivery-typo/', '/embed/x/']) expect(pageNeedsDatabase(no), no).toBe(false);
  });

  it('reads an exported file as the address it is served at', () => {
    expect(urlPathOf('/out', '/out/index.html')).toBe('/');
    expect(urlPathOf('/out', '/out/lab/x/index.html')).toBe('/lab/x/');
    expect(urlPathOf('/out', '/out/404.html')).toBe('/404.html');
  });
});
