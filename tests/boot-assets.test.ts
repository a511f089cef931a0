/**
 * The worker's early downloads (components/db/boot-assets.ts) when the page's HTML compiles
 * PGlite's WebAssembly for it: the worker takes the page's module, or compiles its own when the
 * page says it could not. The browser path is covered end to end in tests/e2e/boot.e2e.mjs.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startBootAssets, type PageWasm } from '@/components/db/boot-assets';

const EMPTY_MODULE = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const urls = { wasm: new URL('http://app/m/pglite.wasm'), fsBundle: new URL('http://app/m/pglite.data'), dataDir: new URL('http://app/m/datadir.tar') };

function stubFetch() {
  const fetched: string[] = [];
  vi.stubGlobal('fetch', async (url: URL) => {
    fetched.push(url.pathname);
    return url.pathname.endsWith('.wasm') ? new Response(EMPTY_MODULE, { headers: { 'Content-Type': 'application/wasm' } }) : new Response('bytes');
  });
  return fetched;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the boot assets with a module from the page', () => {
  it("takes the page's module, on the worker's clock, and does not download it again", async () => {
    const fetched = stubFetch();
    const module = await WebAssembly.compile(EMPTY_MODULE);
    const page: PageWasm = { module, at: performance.timeOrigin + 250 };
    const assets = startBootAssets(urls, Promise.resolve(page));
    const wasm = await assets.wasmModule;
    expect(wasm).toEqual({ value: module, ms: 250, by: 'page' });
    await Promise.all([assets.fsBundle, assets.dataDir]);
    expect(fetched.sort()).toEqual(['/m/datadir.tar', '/m/pglite.data']);
  });

  it('compiles the module itself, saying why, when the page could not', async () => {
    const fetched = stubFetch();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const assets = startBootAssets(urls, Promise.resolve({ reason: '/m/pglite.wasm: HTTP 503', at: 0 }));
    const wasm = await assets.wasmModule;
    expect(wasm.value).toBeInstanceOf(WebAssembly.Module);
    expect(wasm).not.toHaveProperty('by', 'page');
    expect(fetched).toContain('/m/pglite.wasm');
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/could not compile PostgreSQL's WebAssembly .*\(\/m\/pglite\.wasm: HTTP 503\); the worker compiles it itself/));
  });

  it('without the page, downloads and compiles all three itself', async () => {
    const fetched = stubFetch();
    const assets = startBootAssets(urls);
    expect((await assets.wasmModule).value).toBeInstanceOf(WebAssembly.Module);
    await Promise.all([assets.fsBundle, assets.dataDir]);
    expect(fetched.sort()).toEqual(['/m/datadir.tar', '/m/pglite.data', '/m/pglite.wasm']);
  });
});

describe('the data directory and file bundle downloads', () => {
  it('hands both over as Blobs of the bytes as they arrived: the worker inflates nothing itself', async () => {
    const tar = new Uint8Array([0x62, 0x61, 0x73, 0x65, 0x2f, 0x35]); // "base/5"
    vi.stubGlobal('fetch', async (url: URL) =>
      url.pathname.endsWith('.wasm')
        ? new Response(EMPTY_MODULE, { headers: { 'Content-Type': 'application/wasm' } })
        : new Response(url.pathname.endsWith('.tar') ? tar : 'bundle', { headers: { 'Content-Type': 'application/x-tar' } }),
    );
    const assets = startBootAssets(urls);
    const [dataDir, fsBundle] = await Promise.all([assets.dataDir, assets.fsBundle]);
    expect(dataDir.value).toBeInstanceOf(Blob);
    expect(new Uint8Array(await dataDir.value!.arrayBuffer())).toEqual(tar);
    expect(await fsBundle.value!.text()).toBe('bundle');
  });

  it('a download that fails says why, and the boot goes on without it', async () => {
    vi.stubGlobal('fetch', async (url: URL) => new Response('gone', { status: url.pathname.endsWith('.tar') ? 404 : 200, headers: { 'Content-Type': 'application/wasm' } }));
    const dataDir = await startBootAssets(urls).dataDir;
    expect(dataDir).toMatchObject({ value: undefined, reason: '/m/datadir.tar: HTTP 404' });
  });
});
