/**
 * The static server and its build-time gzip twins (scripts/precompress.mjs, scripts/serve.mjs):
 * a browser that accepts gzip gets the twin with Content-Encoding: gzip and the same bytes once
 * decoded; anyone else, a stale twin, or a file without one gets the file as it is.
 */
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { precompress } from '../scripts/precompress.mjs';
import { acceptsGzip, startServer } from '../scripts/serve.mjs';

function get(url: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('gzip twins', () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startServer>>;
  // Compressible and big enough, compressible but tiny, big but already random (incompressible).
  const script = `export const lines = [${Array.from({ length: 400 }, (_, i) => `"line ${i % 37}"`).join(',')}];\n`;
  // A hash chain: deterministic bytes that no compressor can shrink.
  const noise = Buffer.concat(Array.from({ length: 128 }, (_, i) => Buffer.from(sha256(new Uint8Array([i, i >> 8])))));

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'eo-serve-'));
    await writeFile(path.join(dir, 'app.js'), script);
    await writeFile(path.join(dir, 'tiny.js'), 'export {};\n');
    await writeFile(path.join(dir, 'noise.wasm'), noise);
    await writeFile(path.join(dir, 'index.html'), `<!doctype html><title>t</title>${'<p>hello</p>'.repeat(200)}`);
    await writeFile(path.join(dir, '404.html'), 'missing');
    // The prebuilt data directory is a plain tar, mostly zero padding: the twin is what travels.
    await writeFile(path.join(dir, 'datadir.tar'), Buffer.concat([Buffer.from('base/5/1259'), Buffer.alloc(64 * 1024)]));
    const done = await precompress(dir);
    expect(done.files).toBe(3); // app.js, index.html and datadir.tar
    server = await startServer({ dir, port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('precompress writes twins only where they pay', async () => {
    await expect(stat(path.join(dir, 'app.js.gz'))).resolves.toBeTruthy();
    await expect(stat(path.join(dir, 'tiny.js.gz'))).rejects.toThrow();
    await expect(stat(path.join(dir, 'noise.wasm.gz'))).rejects.toThrow();
    expect(gunzipSync(await readFile(path.join(dir, 'app.js.gz'))).toString()).toBe(script);
  });

  test('a client that accepts gzip gets the twin; the bytes decode to the file', async () => {
    const r = await get(`${server.url}app.js`, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers['vary']).toBe('Accept-Encoding');
    expect(r.headers['content-type']).toMatch(/javascript/);
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.body.length).toBeLessThan(script.length / 2);
    expect(gunzipSync(r.body).toString()).toBe(script);
    // Directory index pages too.
    const page = await get(server.url, { 'Accept-Encoding': 'gzip' });
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(page.body).toString()).toMatch(/<p>hello<\/p>/);
  });

  test('the data directory goes out as a tar, gzipped on the wire (the browser inflates it, not the worker)', async () => {
    const r = await get(`${server.url}datadir.tar`, { 'Accept-Encoding': 'gzip' });
    expect(r.headers['content-type']).toBe('application/x-tar');
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.body.length).toBeLessThan(2048);
    expect(gunzipSync(r.body).subarray(0, 11).toString()).toBe('base/5/1259');
  });

  test('no Accept-Encoding, gzip;q=0, a file without a twin, or HEAD: the plain file or no body', async () => {
    for (const headers of [{}, { 'Accept-Encoding': 'gzip;q=0, br' }, { 'Accept-Encoding': 'identity' }] as Record<string, string>[]) {
      const r = await get(`${server.url}app.js`, headers);
      expect(r.headers['content-encoding'], JSON.stringify(headers)).toBeUndefined();
      expect(r.body.toString()).toBe(script);
    }
    const wasm = await get(`${server.url}noise.wasm`, { 'Accept-Encoding': 'gzip' });
    expect(wasm.headers['content-encoding']).toBeUndefined();
    expect(wasm.headers['content-type']).toBe('application/wasm');
    expect(Buffer.compare(wasm.body, noise)).toBe(0);
    const head = await get(`${server.url}app.js`, { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.body.length).toBe(0);
  });

  test('a twin older than its file is not served', async () => {
    const stale = new Date(Date.parse('2020-01-01T00:00:00Z'));
    await utimes(path.join(dir, 'index.html.gz'), stale, stale);
    const r = await get(server.url, { 'Accept-Encoding': 'gzip' });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.body.toString()).toMatch(/<p>hello<\/p>/);
  });

  test('Accept-Encoding parsing', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('br, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip; q=0.0')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
