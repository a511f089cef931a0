/**
 * A bounded fuzz of request targets against the real static server (scripts/serve.mjs) in a child
 * process: paths built from the pieces attacks are made of (dot segments, encoded and doubled
 * slashes and backslashes, bad and overlong percent-escapes, control characters, encoded
 * non-ASCII, site paths, query strings), random methods, ranges and encodings. Every request must
 * get a sane status with the security headers, never the secret outside the site, never a redirect
 * off this origin; and the server must outlive all of them. fast-check prints the seed and the
 * smallest failing request on a failure.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DOTFILE_SECRET, SECRET, makeSite, rawRequest, removeSite, startServerProcess, staysOnOrigin, type ServerProcess, type Site } from './server-harness';

let site: Site;
let server: ServerProcess;

beforeAll(async () => {
  site = await makeSite();
  server = await startServerProcess(site.dir);
});
afterAll(async () => {
  await server?.stop();
  await removeSite(site);
});

const pct = (byte: number) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`;
const PRINTABLE = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i));

/** Path segments: the site's own names, dot segments, and the characters attacks are made of. */
const segment = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '', '.', '..', '%2e', '%2E%2e', '%c0%ae%c0%ae', 'lab', 'x', 'embed', 'edx', 'demo', 'index.html', '404', '404.html', '.env',
      'secret.txt', 'example.com', '%E2%82%AC', '%E2%82', '%0D%0A', '%0A', '%00', '%', '%ff', 'lab%0D%0A', 'lab%E2%82%AC',
      '_next', 'static', 'chunks', 'app.js', 'app.js.gz', 'media', 'blob.bin', '@evil.example', 'http:', '~',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }).map(pct) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...PRINTABLE), maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }).map((s) => encodeURIComponent(s)) },
);
/** What separates segments: a slash, or what some layer might take for one. */
const separator = fc.constantFrom('/', '/', '/', '%2F', '%2f', '\\', '%5C', '//');

const path = fc
  .tuple(fc.array(fc.tuple(separator, segment), { minLength: 1, maxLength: 6 }), fc.constantFrom('', '/', '%2F'), fc.constantFrom('', '', '?seed=3', '?a=%0D%0A', '#x'))
  .map(([parts, end, query]) => `${parts.map(([sep, seg]) => sep + seg).join('')}${end}${query}`)
  .map((p) => (p.startsWith('/') ? p : `/${p}`));

const target = fc.oneof({ weight: 9, arbitrary: path }, { weight: 1, arbitrary: path.map((p) => `http://127.0.0.1${p}`) });

const request = fc.record({
  target,
  method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'OPTIONS'),
  range: fc.option(fc.oneof(fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=1-', 'bytes=5-2', 'bytes=0-1,2-3'), fc.string({ unit: fc.constantFrom(...PRINTABLE), maxLength: 12 }).map((s) => `bytes=${s}`)), { nil: undefined }),
  encoding: fc.option(fc.constantFrom('gzip', 'br', 'gzip;q=0', '*', 'identity', 'br;q=0.5, gzip'), { nil: undefined }),
});

const SANE = new Set([200, 206, 304, 308, 400, 403, 404, 405, 408, 416, 431]);

test('every fuzzed request gets a sane answer with the headers, none leaves the site, the server lives', async () => {
  await fc.assert(
    fc.asyncProperty(request, async ({ target, method, range, encoding }) => {
      const headers: Record<string, string> = {};
      if (range) headers.Range = range;
      if (encoding) headers['Accept-Encoding'] = encoding;
      const r = await rawRequest(server.url, target, headers, method);
      expect(SANE.has(r.status), `${method} ${target} → ${r.status}\n${r.head}`).toBe(true);
      expect(r.headers['content-security-policy'], r.head).toBeTruthy();
      expect(r.headers['x-content-type-options'], r.head).toBe('nosniff');
      if (r.status >= 300 && r.status < 400 && r.status !== 304) {
        expect(staysOnOrigin(r.headers.location ?? '', server.origin), `${target} → Location: ${r.headers.location}`).toBe(true);
      }
      const body = r.body.toString('latin1');
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain(DOTFILE_SECRET);
      expect(server.alive(), `the server died on ${method} ${target}: ${server.stderr().slice(0, 400)}`).toBe(true);
    }),
    { numRuns: 1000 },
  );
  const home = await rawRequest(server.url, '/');
  expect(home.status).toBe(200);
}, 180_000);
