#!/usr/bin/env node
/**
 * A small static file server for the exported site in out/ (no dependencies: node:http only).
 *
 *   node scripts/serve.mjs            # http://127.0.0.1:3000/
 *   PORT=8080 HOST=0.0.0.0 node scripts/serve.mjs
 *
 * `/lab/x/` serves out/lab/x/index.html, `/lab/x` redirects to `/lab/x/` (the export uses trailing
 * slashes), unknown paths get out/404.html with status 404. Files with a gzip twin (`x.js.gz`,
 * written at build time by ./precompress.mjs) are sent gzipped to clients that accept it. Also importable:
 * `startServer({ dir, port, host })` resolves with `{ url, port, close }`.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { COMPRESSIBLE } from './precompress.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
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
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  // Turbopack emits the source of `new URL('./x.worker.ts', import.meta.url)` next to the bundled worker.
  '.ts': 'text/plain; charset=utf-8',
};

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

async function isDirectory(file) {
  try {
    return (await stat(file)).isDirectory();
  } catch {
    return false;
  }
}

/** Whether the request's Accept-Encoding allows gzip (a `q=0` refuses it). */
export function acceptsGzip(header) {
  if (typeof header !== 'string') return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * The precompressed twin of `file` (`file.gz`, written by ./precompress.mjs) when the client
 * accepts gzip and the twin is at least as new as the file; else null.
 */
async function gzipTwin(req, file, stats) {
  if (!acceptsGzip(req.headers['accept-encoding']) || file.endsWith('.gz')) return null;
  const twin = await fileAt(`${file}.gz`);
  return twin && twin.mtimeMs >= stats.mtimeMs ? { file: `${file}.gz`, size: twin.size } : null;
}

async function send(req, res, status, file, stats, extraHeaders = {}) {
  const twin = await gzipTwin(req, file, stats);
  const headers = {
    'Content-Type': contentType(file),
    'Content-Length': twin ? twin.size : stats.size,
    ...(twin ? { 'Content-Encoding': 'gzip' } : {}),
    ...(COMPRESSIBLE.has(path.extname(file).toLowerCase()) ? { Vary: 'Accept-Encoding' } : {}),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': file.includes(`${path.sep}_next${path.sep}static${path.sep}`)
      ? 'public, max-age=31536000, immutable'
      : 'no-cache',
    ...extraHeaders,
  };
  res.writeHead(status, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(twin ? twin.file : file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

function plain(res, status, text, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The request handler for a directory of static files. */
export function staticHandler(dir) {
  const root = path.resolve(dir);

  return async function handle(req, res) {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      plain(res, 405, 'Method Not Allowed\n', { Allow: 'GET, HEAD' });
      return;
    }
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      plain(res, 400, 'Bad Request\n');
      return;
    }
    if (pathname.includes('\0')) {
      plain(res, 400, 'Bad Request\n');
      return;
    }
    const target = path.resolve(root, `.${pathname}`);
    if (target !== root && !target.startsWith(root + path.sep)) {
      plain(res, 403, 'Forbidden\n');
      return;
    }

    if (pathname.endsWith('/')) {
      const index = path.join(target, 'index.html');
      const s = await fileAt(index);
      if (s) return send(req, res, 200, index, s);
    } else {
      const s = await fileAt(target);
      if (s) return send(req, res, 200, target, s);
      if (await isDirectory(target)) {
        const search = new URL(req.url ?? '/', 'http://localhost').search;
        res.writeHead(308, { Location: `${pathname}/${search}`, 'Content-Length': 0 });
        res.end();
        return;
      }
      const html = `${target}.html`;
      const h = await fileAt(html);
      if (h) return send(req, res, 200, html, h);
    }

    const notFound = path.join(root, '404.html');
    const nf = await fileAt(notFound);
    if (nf) return send(req, res, 404, notFound, nf);
    plain(res, 404, 'Not Found\n');
  };
}

/**
 * Serve `dir` on `host:port` (port 0 picks a free one). Resolves once listening.
 * @param {{ dir?: string, port?: number, host?: string }} [options]
 * @returns {Promise<{ url: string, port: number, close: () => Promise<void> }>}
 */
export async function startServer({ dir = path.join(ROOT, 'out'), port = 3000, host = '127.0.0.1' } = {}) {
  if (!(await isDirectory(dir))) {
    throw new Error(`Nothing to serve: ${dir} does not exist. Run \`npm run build\` first.`);
  }
  const server = createServer(staticHandler(dir));
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
