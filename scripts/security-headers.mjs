/**
 * The security headers every response of the static site carries (scripts/serve.mjs sends them;
 * docs/hosting.md gives the same set for nginx and CDNs).
 *
 * Guarantees:
 * - Pages run only the site's own scripts and the inline scripts of that very file, each allowed by
 *   its SHA-256 (`scriptHashes`), never by 'unsafe-inline': markup injected into a page cannot run.
 * - Nothing reaches another origin: fetches, workers, fonts, images and frames are 'self' only (plus
 *   `data:` images and fonts, which carry no request), so a script that slipped in cannot send data out.
 * - WebAssembly compiles ('wasm-unsafe-eval': PGlite is WebAssembly); string-to-code (`eval`,
 *   `new Function`) is allowed only in workers, where the database worker compiles the learner's code.
 * - No page can be framed by another site, except the pages made for it: `/embed/…` and `/edx/…`,
 *   which any origin may frame (course platforms do).
 * - Browsers never guess a type (`nosniff`), and other sites never learn which page linked to them.
 */
import { createHash } from 'node:crypto';

/** Path prefixes of the pages other sites may put in an `<iframe>`. */
export const FRAMEABLE_PREFIXES = ['/embed/', '/edx/'];

/** Whether another origin may frame the page at `pathname` (a decoded, normalized request path). */
export function isFrameable(pathname) {
  return FRAMEABLE_PREFIXES.some((prefix) => pathname.startsWith(prefix));
}

/**
 * The CSP source for each inline `<script>` of an HTML file: `'sha256-…'` of the exact text
 * between its tags, as the browser hashes it. Scripts with a `src` are covered by 'self'.
 * @param {string} html
 * @returns {string[]}
 */
export function scriptHashes(html) {
  const hashes = new Set();
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\ssrc\s*=/i.test(` ${match[1]}`)) continue;
    hashes.add(`'sha256-${createHash('sha256').update(match[2], 'utf8').digest('base64')}'`);
  }
  return [...hashes];
}

/** Directives shared by pages and workers: the site's own origin, and nothing else. */
const OWN_ORIGIN_ONLY = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];

/**
 * The Content-Security-Policy of an HTML page.
 * @param {{ hashes: readonly string[], frameable: boolean }} page the page's inline-script hashes
 *   (`scriptHashes`) and whether other sites may frame it (`isFrameable`)
 */
export function pagePolicy({ hashes, frameable }) {
  return [
    ...OWN_ORIGIN_ONLY,
    // 'wasm-unsafe-eval': the page compiles PGlite's module for the early database worker.
    ['script-src', "'self'", "'wasm-unsafe-eval'", ...hashes].join(' '),
    // Monaco and React put styles in <style> elements and style attributes at run time: styles
    // cannot run code, and with connect/img/font limited to 'self' they cannot send data out either.
    "style-src 'self' 'unsafe-inline'",
    "worker-src 'self'",
    "frame-src 'self'",
    "manifest-src 'self'",
    // Without frame-ancestors any origin may frame the page: what course platforms need.
    ...(frameable ? [] : ["frame-ancestors 'none'"]),
  ].join('; ');
}

/**
 * The Content-Security-Policy of a script. A browser applies it to a worker started from that
 * script (for a script a page loads it means nothing): the database worker compiles PGlite
 * ('wasm-unsafe-eval') and the learner's code ('unsafe-eval': a SES compartment evaluates it with
 * the Function constructor; the realm, not the policy, confines it), and loads its
 * chunks with `importScripts` ('self'). Workers have no DOM, so no inline script to allow.
 */
export const WORKER_POLICY = [
  ...OWN_ORIGIN_ONLY,
  "script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "worker-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The Content-Security-Policy of everything else (styles, images, WebAssembly, data, text): none of
 * it is a page, so if one is opened as a document (an SVG, say) it may run and load nothing.
 */
export const ASSET_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'";

/** Headers every response carries, whatever it is. */
export const COMMON_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  // Full address within the site (the embed reads a same-origin parent's address), nothing to others.
  'Referrer-Policy': 'same-origin',
};

/**
 * The security headers of one response.
 * @param {{ pathname: string, kind: 'page' | 'script' | 'asset', hashes?: readonly string[] }} response
 *   the decoded request path (it decides frameability), what is sent, and a page's inline-script hashes
 * @returns {Record<string, string>}
 */
export function securityHeaders({ pathname, kind, hashes = [] }) {
  const frameable = kind === 'page' && isFrameable(pathname);
  const policy = kind === 'page' ? pagePolicy({ hashes, frameable }) : kind === 'script' ? WORKER_POLICY : ASSET_POLICY;
  return {
    'Content-Security-Policy': policy,
    ...COMMON_HEADERS,
    // For browsers older than CSP's frame-ancestors.
    ...(frameable ? {} : { 'X-Frame-Options': 'DENY' }),
  };
}
