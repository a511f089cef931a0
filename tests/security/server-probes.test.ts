/**
 * Probes of the static server (scripts/serve.mjs) as an attacker and a careless link would send
 * them, against the real server in a child process serving a fixture laid out like the export:
 * requests that once killed it, redirects that once left the origin, traversal, dotfiles, ranges,
 * validators, precompressed twins, and the security headers and frameability of every kind of path.
 * After each probe the server must still be running and still serve the home page.
 */
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  BLOB,
  DOTFILE_SECRET,
  INLINE,
  SCRIPT,
  SECRET,
  cspHash,
  makeSite,
  rawRequest,
  removeSite,
  startServerProcess,
  staysOnOrigin,
  type ServerProcess,
  type Site,
} from './server-harness';

let site: Site;
let server: ServerProcess;

beforeAll(async () => {
  site = await makeSite();
  server = await startServerProcess(site.dir);
});
// A probe that killed the server has failed already: the next one gets a fresh server, so that
// each probe is judged on its own.
beforeEach(async () => {
  if (!server.alive()) server = await startServerProcess(site.dir);
});
afterAll(async () => {
  await server?.stop();
  await removeSite(site);
});

const get = (target: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(server.url, target, headers, method);

/** The server is still running and still serves its home page. */
async function expectAlive(after: string) {
  const home = await get('/').catch((error: Error) => ({ status: 0, error: error.message }));
  expect(server.alive(), `the server process died after ${after}: ${server.stderr().slice(0, 400)}`).toBe(true);
  expect(home.status, `GET / after ${after}`).toBe(200);
}

/** Parse a CSP header into directive → sources. */
function directives(policy: string | undefined): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (policy ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) map.set(name.toLowerCase(), sources);
  }
  return map;
}

describe('requests that must not kill the server', () => {
  test.each([
    '/lab%2F%E2%82%AC%2F..',
    '/lab%2F%E2%82%AC%2F..%2F',
    '/lab%0D%0A',
    '/lab%0D%0ASet-Cookie:%20pwned=1',
    '/lab/x%0D%0ALocation:%20//evil.example',
    '/%0A',
    '/%00',
    '/lab%00',
    '/%',
    '/%E2%82',
    '/%FF%FE',
    '/lab%2F..%2F..%2F',
  ])('GET %s: a 4xx, no injected header, the server lives on', async (target) => {
    const r = await get(target).catch((error: Error) => ({ status: 0, head: `no response: ${error.message}`, headers: {} as Record<string, string> }));
    expect(r.status, r.head).toBeGreaterThanOrEqual(400);
    expect(r.status, r.head).toBeLessThan(500);
    expect(r.headers['set-cookie']).toBeUndefined();
    expect(r.head).not.toMatch(/\r\nLocation:\s*\/\/evil/i);
    await expectAlive(target);
  });
});

describe('redirects stay on this origin', () => {
  test.each([
    '/%2Fexample.com%2F..%2Flab',
    '/%2Fexample.com%2F..%2Flab%2Fx',
    '//example.com/../lab',
    '//example.com/%2E%2E/lab',
    '/%5Cexample.com%2F..%2Flab',
    '/\\example.com/../lab',
    '/%2F%2Fexample.com%2F..%2F..%2Flab',
    '//lab/x',
    '/./lab/x',
    '/lab//x',
  ])('GET %s', async (target) => {
    const r = await get(target);
    if (r.status >= 300 && r.status < 400) {
      expect(r.headers.location, r.head).toBeDefined();
      expect(staysOnOrigin(r.headers.location, server.origin), `Location: ${r.headers.location}`).toBe(true);
    }
    await expectAlive(target);
  });

  test('a directory redirects to its trailing slash, query kept', async () => {
    const r = await get('/lab/x?seed=3&faults=a%2Cb');
    expect(r.status).toBe(308);
    expect(r.headers.location).toBe('/lab/x/?seed=3&faults=a%2Cb');
    const page = await get('/lab/x/');
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('<p>lab x</p>');
    // A page exported as x.html answers /x.
    expect((await get('/about')).body.toString()).toContain('<p>about</p>');
  });
});

describe('nothing outside the site, no dotfiles, no twins by name', () => {
  test.each([
    '/../secret.txt',
    '/..%2Fsecret.txt',
    '/%2e%2e/secret.txt',
    '/%2e%2e%2fsecret.txt',
    '/lab/../../secret.txt',
    '/lab/%2e%2e/%2e%2e/secret.txt',
    '/..\\secret.txt',
    '/%2e%2e%5csecret.txt',
    '/.env',
    '/lab/%2e%2e/.env',
    '/%2e%65nv',
    '/_next/static/chunks/app.js.gz',
  ])('GET %s', async (target) => {
    const r = await get(target);
    expect([400, 403, 404], r.head).toContain(r.status);
    expect(r.body.toString('latin1')).not.toContain(SECRET);
    expect(r.body.toString('latin1')).not.toContain(DOTFILE_SECRET);
    await expectAlive(target);
  });
});

describe('ranges', () => {
  test('a byte range gets 206 and exactly those bytes', async () => {
    const r = await get('/media/blob.bin', { Range: 'bytes=100-199' });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe('bytes 100-199/4096');
    expect(Buffer.compare(r.body, BLOB.subarray(100, 200))).toBe(0);
  });

  test('an open range and a suffix range', async () => {
    const open = await get('/media/blob.bin', { Range: 'bytes=4000-' });
    expect(open.status).toBe(206);
    expect(Buffer.compare(open.body, BLOB.subarray(4000))).toBe(0);
    const suffix = await get('/media/blob.bin', { Range: 'bytes=-96' });
    expect(suffix.status).toBe(206);
    expect(suffix.headers['content-range']).toBe('bytes 4000-4095/4096');
    expect(Buffer.compare(suffix.body, BLOB.subarray(4000))).toBe(0);
  });

  test('a range past the end is 416', async () => {
    const r = await get('/media/blob.bin', { Range: 'bytes=5000-' });
    expect(r.status).toBe(416);
    expect(r.headers['content-range']).toBe('bytes */4096');
  });

  test.each(['bytes=200-100', 'bytes=0-1,5-6', 'bytes=abc', 'items=0-5', 'bytes=-', 'bytes=99999999999999999999-'])(
    'Range: %s is ignored or refused, never a crash',
    async (range) => {
      const r = await get('/media/blob.bin', { Range: range });
      expect([200, 206, 416], r.head).toContain(r.status);
      if (r.status === 200) expect(Buffer.compare(r.body, BLOB)).toBe(0);
      await expectAlive(`Range: ${range}`);
    },
  );
});

describe('validators', () => {
  test('an ETag, and 304 with no body when it still matches', async () => {
    const first = await get('/_next/static/chunks/app.js');
    expect(first.headers.etag).toBeTruthy();
    const again = await get('/_next/static/chunks/app.js', { 'If-None-Match': first.headers.etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers['content-security-policy']).toBeTruthy();
  });
});

describe('precompressed twins', () => {
  test('brotli when accepted, else gzip, else the file; each decodes to the file', async () => {
    const br = await get('/_next/static/chunks/app.js', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    const gz = await get('/_next/static/chunks/app.js', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
    expect(gz.headers.vary).toMatch(/Accept-Encoding/i);
    for (const enc of ['gzip;q=0, br;q=0', 'identity', '']) {
      const plain = await get('/_next/static/chunks/app.js', enc ? { 'Accept-Encoding': enc } : {});
      expect(plain.headers['content-encoding'], enc).toBeUndefined();
      expect(plain.body.toString()).toBe(SCRIPT);
    }
  });

  test('pages and the 404 page come gzipped too; a stale twin is never sent', async () => {
    const home = await get('/', { 'Accept-Encoding': 'gzip' });
    expect(home.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(home.body).toString()).toContain('<p>home</p>');
    const missing = await get('/no/such/page/', { 'Accept-Encoding': 'gzip' });
    expect(missing.status).toBe(404);
    expect(gunzipSync(missing.body).toString()).toContain('<p>missing</p>');
    const stale = await get('/_next/static/chunks/stale.js', { 'Accept-Encoding': 'br, gzip' });
    expect(stale.headers['content-encoding']).toBeUndefined();
    expect(stale.body.toString()).toContain('fresh');
  });
});

describe('security headers on every response', () => {
  const cases: { name: string; target: string; method?: string; kind: 'page' | 'script' | 'other'; page?: string }[] = [
    { name: 'home', target: '/', kind: 'page', page: '/index.html' },
    { name: 'lab', target: '/lab/x/', kind: 'page', page: '/lab/x/index.html' },
    { name: 'demo', target: '/demo/x/', kind: 'page', page: '/demo/x/index.html' },
    { name: 'embed', target: '/embed/x/', kind: 'page', page: '/embed/x/index.html' },
    { name: 'edx', target: '/edx/x/', kind: 'page', page: '/edx/x/index.html' },
    { name: '404 page', target: '/nope/', kind: 'page', page: '/404.html' },
    { name: 'script', target: '/_next/static/chunks/app.js', kind: 'script' },
    { name: 'stylesheet', target: '/_next/static/media/style.css', kind: 'other' },
    { name: 'binary', target: '/media/blob.bin', kind: 'other' },
    { name: 'redirect', target: '/lab/x', kind: 'other' },
    { name: 'bad request', target: '/%E2%82', kind: 'other' },
    { name: 'POST', target: '/', method: 'POST', kind: 'other' },
    { name: 'OPTIONS', target: '/lab/x/', method: 'OPTIONS', kind: 'other' },
  ];
  test.each(cases)('$name ($target)', async ({ target, method, kind, page }) => {
    const r = await get(target, {}, method);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['referrer-policy']).toBe('same-origin');
    const csp = directives(r.headers['content-security-policy']);
    expect(csp.size, r.head).toBeGreaterThan(0);
    const script = csp.get('script-src') ?? csp.get('default-src') ?? [];
    expect(script).not.toContain("'unsafe-inline'");
    if (kind === 'page') {
      expect(csp.get('default-src')).toEqual(["'self'"]);
      expect(csp.get('connect-src')).toEqual(["'self'"]);
      expect(csp.get('object-src')).toEqual(["'none'"]);
      expect(script).toContain("'wasm-unsafe-eval'");
      expect(script).not.toContain("'unsafe-eval'");
      // Exactly the page's own inline scripts, by hash.
      const hashes = script.filter((s) => s.startsWith("'sha256-"));
      expect(hashes.sort()).toEqual(INLINE[page!].map(cspHash).sort());
    } else if (kind === 'script') {
      // A worker started from it compiles WebAssembly and the learner's code, and reaches only this origin.
      expect(script).toEqual(expect.arrayContaining(["'self'", "'unsafe-eval'", "'wasm-unsafe-eval'"]));
      expect(csp.get('connect-src')).toEqual(["'self'"]);
    } else {
      expect(csp.get('default-src')).toEqual(["'none'"]);
    }
    if (method) expect(r.status).toBe(405);
    await expectAlive(`${method ?? 'GET'} ${target}`);
  });
});

describe('who may frame what', () => {
  const frameable = (r: { headers: Record<string, string> }) =>
    !directives(r.headers['content-security-policy']).has('frame-ancestors') && r.headers['x-frame-options'] === undefined;

  test.each(['/embed/x/', '/edx/x/', '/embed/no-such-lab/', '/%65mbed/x/', '/lab/../embed/x/'])('%s: any origin may frame it', async (target) => {
    const r = await get(target);
    expect([200, 404]).toContain(r.status);
    expect(frameable(r), r.head).toBe(true);
  });

  test.each(['/', '/lab/x/', '/demo/x/', '/embedded/', '/embed-example.html', '/nope/', '/embed/../lab/x/', '/embed', '/_next/static/chunks/app.js', '/media/blob.bin'])(
    '%s: nobody may frame it',
    async (target) => {
      const r = await get(target);
      expect(directives(r.headers['content-security-policy']).get('frame-ancestors'), r.head).toEqual(["'none'"]);
      expect(r.headers['x-frame-options']).toBe('DENY');
    },
  );
});
