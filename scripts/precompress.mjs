#!/usr/bin/env node
/**
 * Gzip the static export once, at build time: every compressible file in out/ of 1 KB or more gets
 * a `.gz` twin when that saves at least a tenth, and ./serve.mjs sends the twin to browsers that
 * accept gzip. The boot's big files shrink most — PGlite's WebAssembly 9.1 → ~3.3 MB, its file
 * bundle 6.2 → ~2.1 MB, Monaco's scripts to about a quarter — so a cold visit downloads ~6.5 MB
 * instead of ~16.5 MB before the database can start. Any host that serves precompressed files
 * (nginx `gzip_static`, most CDNs) can use the same twins.
 *
 *   node scripts/precompress.mjs [dir]     # default: out/ (run by `npm run build`)
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** Extensions worth compressing (already-compressed formats such as .gz, .png, .woff2 are not). */
export const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.txt', '.svg', '.wasm', '.data', '.tar', '.ttf', '.ico']);
export const MIN_BYTES = 1024;
/** A twin is kept only when it is at most this fraction of the original. */
export const MAX_RATIO = 0.9;

async function* filesUnder(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(full);
    else if (entry.isFile()) yield full;
  }
}

/**
 * Write `.gz` twins under `dir`. Resolves with what was done.
 * @param {string} dir
 * @returns {Promise<{ files: number, bytes: number, gzBytes: number }>}
 */
export async function precompress(dir) {
  const todo = [];
  for await (const file of filesUnder(dir)) {
    if (COMPRESSIBLE.has(path.extname(file).toLowerCase())) todo.push(file);
  }
  let files = 0;
  let bytes = 0;
  let gzBytes = 0;
  const work = async (file) => {
    const body = await readFile(file);
    if (body.length < MIN_BYTES) return;
    const gz = await gzipAsync(body, { level: constants.Z_BEST_COMPRESSION });
    if (gz.length > body.length * MAX_RATIO) return;
    await writeFile(`${file}.gz`, gz);
    files++;
    bytes += body.length;
    gzBytes += gz.length;
  };
  // zlib runs on libuv's thread pool: a few files at a time keep the cores busy.
  const lanes = Math.max(2, availableParallelism());
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < todo.length) await work(todo[next++]);
    }),
  );
  return { files, bytes, gzBytes };
}

const runDirectly = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (runDirectly) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const dir = path.resolve(process.argv[2] ?? path.join(root, 'out'));
  if (!(await stat(dir).catch(() => null))?.isDirectory()) {
    console.error(`precompress: ${dir} does not exist. Run \`next build\` first.`);
    process.exit(1);
  }
  const started = process.hrtime.bigint();
  const { files, bytes, gzBytes } = await precompress(dir);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const mb = (n) => (n / 1e6).toFixed(1);
  console.log(`precompress: ${files} files, ${mb(bytes)} MB → ${mb(gzBytes)} MB gzip, in ${(ms / 1000).toFixed(1)} s (${path.relative(process.cwd(), dir) || '.'})`);
}
