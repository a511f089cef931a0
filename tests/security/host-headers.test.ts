/**
 * The configuration scripts/host-headers.mjs generates for static hosts carries the same headers
 * the server sends: each page's own inline-script hashes at its address, the scripts' policy
 * under /_next/static/, frameability only under /embed/ and /edx/.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { headersFile, nginxConf, pageRules } from '../../scripts/host-headers.mjs';
import { WORKER_POLICY } from '../../scripts/security-headers.mjs';
import { INLINE, cspHash, makeSite, removeSite, type Site } from './server-harness';

let site: Site;
beforeAll(async () => {
  site = await makeSite();
});
afterAll(async () => {
  await removeSite(site);
});

/** The `_headers` blocks: path → header lines. */
function blocks(text: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    if (!line.startsWith(' ')) map.set(line, (current = []));
    else current?.push(line.trim());
  }
  return map;
}

test('_headers: one block per page with its own hashes; frame headers only outside /embed/ and /edx/', async () => {
  const text = headersFile(await pageRules(site.dir));
  const map = blocks(text);
  expect(map.get('/*')).toEqual(['X-Content-Type-Options: nosniff', 'Referrer-Policy: same-origin']);
  expect(map.get('/_next/static/*')).toContain(`Content-Security-Policy: ${WORKER_POLICY}`);
  for (const [address, page] of [
    ['/', '/index.html'],
    ['/lab/x/', '/lab/x/index.html'],
    ['/embed/x/', '/embed/x/index.html'],
    ['/edx/x/', '/edx/x/index.html'],
    ['/404.html', '/404.html'],
  ]) {
    const lines = map.get(address) ?? [];
    const csp = lines.find((l) => l.startsWith('Content-Security-Policy: ')) ?? '';
    const hashes = csp.match(/'sha256-[^']+'/g) ?? [];
    expect(hashes.sort(), address).toEqual(INLINE[page].map(cspHash).sort());
    const frameable = address.startsWith('/embed/') || address.startsWith('/edx/');
    expect(csp.includes("frame-ancestors 'none'"), address).toBe(!frameable);
    expect(lines.includes('X-Frame-Options: DENY'), address).toBe(!frameable);
  }
  // Exactly one CSP per address: hosts merge matching rules, and a second policy would be enforced too.
  expect(text.match(/^\/\*\n(?: .*\n)*/m)?.[0]).not.toMatch(/Content-Security-Policy/);
});

test('nginx: a map from $uri (both address forms) to each page policy, and the frame header map', async () => {
  const conf = nginxConf(await pageRules(site.dir));
  const lab = INLINE['/lab/x/index.html'].map(cspHash);
  for (const key of ['"/lab/x/"', '"/lab/x/index.html"']) {
    const line = conf.split('\n').find((l) => l.trim().startsWith(`${key} "default-src`)) ?? '';
    for (const hash of lab) expect(line, key).toContain(hash);
  }
  expect(conf).toMatch(/map \$uri \$eo_frame_options \{\n {2}default "DENY";/);
  expect(conf).toContain('  "/embed/x/" "";');
  expect(conf).not.toContain('  "/lab/x/" "";');
});
