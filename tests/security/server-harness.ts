/**
 * The server probes' world: a small site laid out like the static export (pages with inline
 * scripts, a lab, embeds, a 404 page, a script with gzip and brotli twins, a binary for ranges, a
 * dotfile inside and a secret outside), the real server module started in a child process (so a
 * request that kills the server shows as a dead process, not as a crashed test runner), and raw
 * HTTP requests that send exactly the target they are given (Node's own client refuses many).
 *
 * `SERVE_MODULE=/abs/path/serve.mjs` probes another server module with the same API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync } from 'node:zlib';
import { precompress } from '../../scripts/precompress.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SERVE_MODULE = process.env.SERVE_MODULE ?? path.join(root, 'scripts/serve.mjs');

/** Text only the file outside the served directory holds: no response may contain it. */
export const SECRET = 'SECRET-OUTSIDE-THE-SITE-7d1f';
/** Text only the dotfile inside the served directory holds. */
export const DOTFILE_SECRET = 'DOTFILE-INSIDE-THE-SITE-93ab';

/** Inline scripts of the fixture's pages, by page key: what each page's CSP must allow by hash. */
export const INLINE: Record<string, string[]> = {};

function page(key: string, title: string, scripts: string[]): string {
  INLINE[key] = scripts;
  const body = `<p>${title}</p>`.repeat(80);
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title>${scripts.map((s) => `<script>${s}</script>`).join('')}</head><body>${body}<script src="/_next/static/chunks/app.js" async=""></script></body></html>`;
}

/** `'sha256-…'`, as a browser hashes an inline script's text. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

export const SCRIPT = `export const lines = [${Array.from({ length: 300 }, (_, i) => `"line ${i % 29}"`).join(',')}];\n`;
/** 4096 deterministic bytes for range requests. */
export const BLOB = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31 + 7) % 256));

export interface Site {
  /** The served directory. */
  dir: string;
  /** Its parent, which also holds secret.txt. */
  parent: string;
}

/** Lay out the fixture site under a fresh temporary directory. */
export async function makeSite(): Promise<Site> {
  const parent = await mkdtemp(path.join(tmpdir(), 'eo-security-'));
  const dir = path.join(parent, 'site');
  const files: Record<string, string | Buffer> = {
    'index.html': page('/index.html', 'home', ['self.__a=1', 'self.__next_f=self.__next_f||[];self.__next_f.push([0])']),
    'lab/index.html': page('/lab/index.html', 'labs', ['self.__labs=1']),
    'lab/x/index.html': page('/lab/x/index.html', 'lab x', ['self.__lab="x"', '(self.__next_f=self.__next_f||[]).push([1,"lab </p>"])']),
    'demo/x/index.html': page('/demo/x/index.html', 'demo x', ['self.__demo=1']),
    'embed/x/index.html': page('/embed/x/index.html', 'embed x', ['self.__embed=1']),
    'edx/x/index.html': page('/edx/x/index.html', 'edx x', ['self.__edx=1']),
    'embedded/index.html': page('/embedded/index.html', 'not an embed', ['self.__embedded=1']),
    'embed-example.html': page('/embed-example.html', 'example', ['self.__example=1']),
    'about.html': page('/about.html', 'about', ['self.__about=1']),
    '404.html': page('/404.html', 'missing', ['self.__missing=1']),
    '_next/static/chunks/app.js': SCRIPT,
    '_next/static/chunks/stale.js': SCRIPT.replace('lines', 'fresh'),
    '_next/static/media/style.css': `body{color:black}\n${'.x{margin:0}\n'.repeat(200)}`,
    'media/blob.bin': BLOB,
    '.env': DOTFILE_SECRET,
  };
  for (const [name, body] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), body);
  }
  await writeFile(path.join(parent, 'secret.txt'), SECRET);
  await precompress(dir);
  for (const name of ['_next/static/chunks/app.js', '_next/static/chunks/stale.js']) {
    await writeFile(path.join(dir, `${name}.br`), brotliCompressSync(files[name]));
  }
  // A twin older than its file holds an older file: it must not be sent.
  const old = new Date(Date.parse('2020-01-01T00:00:00Z'));
  await utimes(path.join(dir, '_next/static/chunks/stale.js.br'), old, old);
  await utimes(path.join(dir, '_next/static/chunks/stale.js.gz'), old, old);
  return { dir, parent };
}

export interface ServerProcess {
  url: string;
  origin: string;
  child: ChildProcess;
  /** Whether the server process is still running. */
  alive(): boolean;
  /** Everything it wrote to stderr (a crash's stack). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Start `SERVE_MODULE`'s `startServer({ dir, port: 0 })` in a child process. */
export async function startServerProcess(dir: string): Promise<ServerProcess> {
  const code = `const { startServer } = await import(${JSON.stringify(SERVE_MODULE)});
const s = await startServer({ dir: ${JSON.stringify(dir)}, port: 0, host: '127.0.0.1' });
process.stdout.write(s.url + '\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', (status) => reject(new Error(`server exited (${status}) before listening: ${err}`)));
  });
  return {
    url,
    origin: new URL(url).origin,
    child,
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface RawResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The raw header block, to look for injected lines. */
  head: string;
  body: Buffer;
}

/**
 * Send `METHOD target HTTP/1.1` exactly as given and read the whole response (Connection: close).
 * Rejects when the connection fails or closes without a response (a dead server).
 */
export function rawRequest(base: string, target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(20_000, () => socket.destroy(new Error(`no answer to ${method} ${target} in 20 s`)));
    socket.on('connect', () => {
      const lines = [`${method} ${target} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      // Not end(): a half-closed socket makes Node's server drop the response it is still preparing.
      socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP response to ${method} ${target} (${all.length} bytes)`));
      const head = all.subarray(0, split).toString('latin1');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const at = line.indexOf(':');
        const name = line.slice(0, at).trim().toLowerCase();
        const value = line.slice(at + 1).trim();
        parsed[name] = parsed[name] === undefined ? value : `${parsed[name]}, ${value}`;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers: parsed, head, body: all.subarray(split + 4) });
    });
  });
}

/** Whether a redirect's Location stays on `origin`, however a browser reads it. */
export function staysOnOrigin(location: string, origin: string): boolean {
  if (/[\r\n\t]/.test(location) || /^\s*[\\/]{2}/.test(location) || /^[\\/][\\/]/.test(location)) return false;
  try {
    return new URL(location, `${origin}/some/page/`).origin === origin;
  } catch {
    return false;
  }
}

export async function removeSite(site: Site | undefined): Promise<void> {
  if (site) await rm(site.parent, { recursive: true, force: true });
}
