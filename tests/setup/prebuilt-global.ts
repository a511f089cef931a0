/**
 * Vitest globalSetup: make the prebuilt PGlite data directory (generated/pglite-datadir.tar) when
 * it is missing, as `npm run build` would. The CLI the tests spawn boots from it in ~2 s instead of
 * ~4.5 s with initdb (scripts/node-pglite.ts); CI runs these tests before the build, on a clone
 * without it. A tarball left by an older schema is not rebuilt here: the CLI falls back to initdb
 * for it, which is slower and gives the same runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export default function setup(): void {
  if (existsSync(`${root}/generated/pglite-datadir.tar`)) return;
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-datadir.ts'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`scripts/build-datadir.ts failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  process.stdout.write(r.stdout);
}
