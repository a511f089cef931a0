/**
 * Vitest globalSetup: bundle the CLI once (scripts/sim-cli.ts and its explore thread, with esbuild,
 * as `npm run bench` bundles its scripts) into .cli-test/, so every test that spawns the CLI runs
 * the same code without tsx's loader transpiling and resolving ~200 modules in each process
 * (about a second of CPU per spawn, and again in each explore thread). The bundle sits one folder
 * below the root, where scripts/node-pglite.ts finds generated/ as it does from scripts/.
 * tests/cli.test.ts still runs the command a user types (`npm run -s sim`) through tsx.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_BUNDLE_DIR = `${root}.cli-test`;

export default async function setup(project: TestProject): Promise<void> {
  rmSync(CLI_BUNDLE_DIR, { recursive: true, force: true });
  await build({
    entryPoints: [`${root}scripts/sim-cli.ts`, `${root}scripts/explore-worker.ts`],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: CLI_BUNDLE_DIR,
    logLevel: 'warning',
  });
  project.provide('cliEntry', `${CLI_BUNDLE_DIR}/sim-cli.js`);
}

declare module 'vitest' {
  export interface ProvidedContext {
    cliEntry: string;
  }
}
