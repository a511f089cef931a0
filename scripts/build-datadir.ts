#!/usr/bin/env tsx
/**
 * Build step (run by `npm run build` and `npm run dev` before Next): the prebuilt PostgreSQL data
 * directory the browser worker boots from. One PGlite instance in Node runs initdb, installs the
 * virtual clock and the lesson's schema (components/db/prebuilt-datadir.ts), and is dumped to
 * generated/pglite-datadir.tar — git-ignored, bundled by Turbopack as a static asset of the
 * worker (so `next build` fails loudly if this step did not run).
 *
 *   npx tsx scripts/build-datadir.ts
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPrebuiltBuilder, dumpPrebuiltDataDir, schemaFingerprint } from '../components/db/prebuilt-datadir';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'generated', 'pglite-datadir.tar');

const started = process.hrtime.bigint();
const pg = await createPrebuiltBuilder();
try {
  const tarball = await dumpPrebuiltDataDir(pg);
  const bytes = Buffer.from(await tarball.arrayBuffer());
  await mkdir(path.dirname(target), { recursive: true });
  // Write beside, then rename: a build never sees half a tarball.
  await writeFile(`${target}.tmp`, bytes);
  await rename(`${target}.tmp`, target);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(
    `build-datadir: ${path.relative(root, target)} (${(bytes.length / 1024).toFixed(0)} KB, schema ${schemaFingerprint()}) in ${(ms / 1000).toFixed(1)} s`,
  );
} finally {
  await pg.close();
}
