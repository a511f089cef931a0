#!/usr/bin/env node
/**
 * The static server for the exported site in out/: `sirv` sends the files (ETag and 304, Range,
 * the precompressed `.br`/`.gz` twins ./precompress.mjs writes), this module decides which file
 * answers a request and adds the security headers of ./security-headers.mjs to every response.
 *
 *   node scripts/serve.mjs            # http://127.0.0.1:3000/
 *   PORT=8080 HOST=0.0.0.0 node scripts/serve.mjs
 *
 * `/lab/x/` serves out/lab/x/index.html, `/lab/x` redirects to `/lab/x/` (the export uses trailing
 * slashes), `/x` serves out/x.html when there is one, anything else gets out/404.html with status
 * 404. Files are looked up per request, so a rebuild is served without a restart.
 *
 * Guarantees, whatever the request: no response names a file outside the served directory, a
 * dotfile or a twin by its own name; a redirect's Location is built from the file found, never from
 * the request, so it stays on this origin; a request the server cannot make sense of gets 400, and
 * no request ends the process. Also importable: `startServer({ dir, port, host })` resolves with
 * `{ url, port, close }`.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sirv from 'sirv';
import { COMPRESSIBLE } from './precompress.mjs';
import { scriptHashes, securityHeaders } from './security-headers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.data': 'application/octet-stream',
  '.tar': 'application/x-tar',
  // Turbopack emits the source of `new URL('./x.worker.ts', import.meta.url)` next to the bundled worker.
  '.ts': 'text/plain; charset=utf-8',
};

const SCRIPTS = new Set(['.js', '.mjs']);
/** Precompressed twins, best first: the file name's suffix and the Content-Encoding it is sent with. */
const TWINS = [
  { suffix: '.br', coding: 'br' },
  { suffix: '.gz', coding: 'gzip' },
];

function contentType(file) {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

async function fileAt(file) {
  try {
    const s = await stat(file);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

/** Whether an Accept-Encoding header allows `coding` (`*` counts; a `q=0` refuses it). */
export function acceptsEncoding(header, coding) {
  if (typeof header !== 'string') return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name.trim() !== coding && name.trim() !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Whether the request's Accept-Encoding allows gzip (a `q=0` refuses it). */
export function acceptsGzip(header) {
  return acceptsEncoding(header, 'gzip');
}

/**
 * The path a request asks for, percent-decoded as a browser encodes paths (`decodeURI`: an encoded
 * `/`, `?` or `#` stays encoded, so it never matches a file) and with `.`/`..` segments and repeated
 * slashes resolved, so it always starts with exactly one `/`; and its query string when that is
 * printable ASCII. Null when there is no such path: bad percent-encoding, control characters.
 * @param {string | undefined} url the request target (`req.url`)
 * @returns {{ pathname: string, search: string } | null}
 */
export function requestPath(url = '/') {
  let target = url;
  if (!target.startsWith('/')) {
    // The absolute form (`GET http://host/x`), which proxies send.
    try {
      const parsed = new URL(target);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
      target = parsed.pathname + parsed.search;
    } catch {
      return null;
    }
  }
  const end = target.search(/[?#]/);
  const rawPath = end < 0 ? target : target.slice(0, end);
  const search = end >= 0 && target[end] === '?' ? target.slice(end).split('#')[0] : '';
  let decoded;
  try {
    decoded = decodeURI(rawPath);
  } catch {
    return null;
  }
  if (/[\x00-\x1f\x7f]/.test(decoded)) return null;
  return { pathname: path.posix.normalize(decoded), search: /^\?[\x21-\x7e]*$/.test(search) ? search : '' };
}

/** A served file's path as a URL path: each segment percent-encoded. */
function encodePath(key) {
  return key
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/**
 * Which file answers `pathname` (a `requestPath`): `{ key }` names it relative to the served
 * directory, `{ redirect }` is the directory's address with its trailing slash, null: none.
 * Dotfiles and twins (`x.js.gz`: an encoding of `x.js`, not a resource) are never named.
 */
async function resolve(root, pathname) {
  const isFile = (key) => {
    if (/\/\.(?!well-known\/)|\.(gz|br)$|[?#]/.test(key)) return null;
    const abs = path.join(root, key);
    return abs.startsWith(root + path.sep) ? fileAt(abs) : null;
  };
  if (pathname.endsWith('/')) return (await isFile(`${pathname}index.html`)) ? { key: `${pathname}index.html` } : null;
  if (await isFile(pathname)) return { key: pathname };
  if (await isFile(`${pathname}/index.html`)) return { redirect: `${pathname}/` };
  if (await isFile(`${pathname}.html`)) return { key: `${pathname}.html` };
  return null;
}

/**
 * The twin of `abs` to send: the best coding the client accepts whose twin is at least as new as
 * the file (an older twin holds an older file). Null: send the file as it is.
 */
async function twinFor(acceptEncoding, abs, stats) {
  for (const { suffix, coding } of TWINS) {
    if (!acceptsEncoding(acceptEncoding, coding)) continue;
    const twin = await fileAt(abs + suffix);
    if (twin && twin.mtimeMs >= stats.mtimeMs) return { abs: abs + suffix, coding, size: twin.size };
  }
  return null;
}

/**
 * Leave sirv a Range it serves right, or none (then the whole file, as RFC 9110 allows): one
 * `bytes=` range; a suffix (`-500`) becomes explicit; a malformed range, several ranges, or an
 * If-Range (our validators are weak, which If-Range may not use) are ignored.
 */
function normalizeRange(headers, size) {
  const range = headers.range;
  delete headers.range;
  if (typeof range !== 'string' || headers['if-range'] !== undefined) return;
  const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  if (!m || (m[1] === '' && m[2] === '')) return;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    // A zero-length suffix is unsatisfiable: sirv answers a start past the end with 416.
    headers.range = suffix === 0 ? `bytes=${size}-` : `bytes=${Math.max(0, size - suffix)}-${size - 1}`;
    return;
  }
  const start = Number(m[1]);
  if (m[2] !== '' && Number(m[2]) < start) return;
  headers.range = m[2] === '' ? `bytes=${start}-` : `bytes=${start}-${Math.min(Number(m[2]), size - 1)}`;
}

function kindOf(key) {
  const ext = path.extname(key).toLowerCase();
  return ext === '.html' ? 'page' : SCRIPTS.has(ext) ? 'script' : 'asset';
}

/** The request handler for a directory of static files. */
export function staticHandler(dir) {
  const root = path.resolve(dir);
  // Inline-script hashes per page, kept while the file's size and time stay the same.
  const hashCache = new Map();
  const hashesOf = async (abs, stats) => {
    const cached = hashCache.get(abs);
    if (cached && cached.mtimeMs === stats.mtimeMs && cached.size === stats.size) return cached.hashes;
    const hashes = scriptHashes(await readFile(abs, 'utf8'));
    hashCache.set(abs, { mtimeMs: stats.mtimeMs, size: stats.size, hashes });
    return hashes;
  };
  // Files only: which file is decided above, and dotfiles and traversal are ruled out there.
  const files = sirv(root, { dev: true, etag: true, gzip: true, brotli: true, extensions: [], dotfiles: false });

  const plain = (res, status, text, pathname, headers = {}) => {
    res.writeHead(status, {
      ...securityHeaders({ pathname, kind: 'asset' }),
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
      ...headers,
    });
    res.end(text);
  };

  const notFound = async (req, res, pathname) => {
    const abs = path.join(root, '404.html');
    const stats = await fileAt(abs);
    if (!stats) return plain(res, 404, 'Not Found\n', pathname);
    const twin = await twinFor(req.headers['accept-encoding'], abs, stats);
    const body = await readFile(twin ? twin.abs : abs);
    res.writeHead(404, {
      ...securityHeaders({ pathname, kind: 'page', hashes: await hashesOf(abs, stats) }),
      'Content-Type': CONTENT_TYPES['.html'],
      'Content-Length': body.length,
      'Cache-Control': 'no-cache',
      Vary: 'Accept-Encoding',
      ...(twin ? { 'Content-Encoding': twin.coding } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const handle = async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'Method Not Allowed\n', '/', { Allow: 'GET, HEAD' });
    const target = requestPath(req.url);
    if (!target) return plain(res, 400, 'Bad Request\n', '/');
    const { pathname, search } = target;
    const found = await resolve(root, pathname);
    if (!found) return notFound(req, res, pathname);
    if (found.redirect) {
      res.writeHead(308, { ...securityHeaders({ pathname, kind: 'asset' }), Location: encodePath(found.redirect) + search, 'Content-Length': 0 });
      res.end();
      return;
    }
    const abs = path.join(root, found.key);
    const stats = await fileAt(abs);
    if (!stats) return notFound(req, res, pathname);
    const kind = kindOf(found.key);
    const headers = securityHeaders({ pathname, kind, hashes: kind === 'page' ? await hashesOf(abs, stats) : [] });
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('Content-Type', contentType(found.key));
    res.setHeader('Cache-Control', found.key.startsWith('/_next/static/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (COMPRESSIBLE.has(path.extname(found.key).toLowerCase())) res.setHeader('Vary', 'Accept-Encoding');

    // sirv picks a twin by the codings named in Accept-Encoding: name only the one chosen here.
    const twin = await twinFor(req.headers['accept-encoding'], abs, stats);
    req.headers['accept-encoding'] = twin ? twin.coding : 'identity';
    normalizeRange(req.headers, twin ? twin.size : stats.size);
    // A file that disappears once sirv has found it (a rebuild) ends that response, not the server;
    // a client that goes away mid-file closes the file (pipe() alone would leave it open).
    res.once('pipe', (source) => {
      source.once('error', () => res.destroy());
      res.once('close', () => source.destroy());
    });
    req.url = found.key.replace(/%/g, '%25');
    files(req, res, () => notFound(req, res, pathname).catch(() => res.destroy()));
  };

  function serve(req, res) {
    handle(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else plain(res, 500, 'Internal Server Error\n', '/');
    });
  }
  /** Hash every page's inline scripts now, so that no first visit waits for it. Resolves with the page count. */
  serve.warm = async () => {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    const pages = entries.filter((e) => e.isFile() && e.name.endsWith('.html')).map((e) => path.join(e.parentPath ?? e.path, e.name));
    for (const abs of pages) {
      const stats = await fileAt(abs);
      if (stats) await hashesOf(abs, stats);
    }
    return pages.length;
  };
  return serve;
}

/**
 * Serve `dir` on `host:port` (port 0 picks a free one). Resolves once listening.
 * @param {{ dir?: string, port?: number, host?: string }} [options]
 * @returns {Promise<{ url: string, port: number, close: () => Promise<void> }>}
 */
export async function startServer({ dir = path.join(ROOT, 'out'), port = 3000, host = '127.0.0.1' } = {}) {
  if (!(await stat(dir).catch(() => null))?.isDirectory()) {
    throw new Error(`Nothing to serve: ${dir} does not exist. Run \`npm run build\` first.`);
  }
  const handler = staticHandler(dir);
  await handler.warm();
  const server = createServer(handler);
  // A request Node's HTTP parser rejects gets its 400 (431: headers too large) with the same headers.
  server.on('clientError', (error, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    const headers = Object.entries(securityHeaders({ pathname: '/', kind: 'asset' })).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(`HTTP/1.1 ${status}\r\n${headers.join('')}Content-Length: 0\r\nConnection: close\r\n\r\n`);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${actualPort}/`,
    port: actualPort,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections?.();
      }),
  };
}

const runDirectly = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;

if (runDirectly) {
  const port = process.env.PORT ? Number(process.env.PORT) : 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
    process.exit(1);
  }
  try {
    const { url, close } = await startServer({ port, host: process.env.HOST || '127.0.0.1' });
    console.log(`Serving out/ at ${url}`);
    const stop = () => {
      close().then(() => process.exit(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
