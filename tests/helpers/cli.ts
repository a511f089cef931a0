/** The CLI as the tests spawn it: the bundle tests/setup/cli-bundle-global.ts made of scripts/sim-cli.ts. */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { inject } from 'vitest';

/** Run the CLI with `args` in a process of its own, as `npm run -s sim -- …args` does. */
export function spawnCli(args: readonly string[], timeout = 120_000): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [inject('cliEntry'), ...args], { encoding: 'utf8', timeout });
}

/** What stands for `npm run -s sim -- ` in a command line pasted into bash. */
export function cliCommandPrefix(): string {
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(inject('cliEntry'))} `;
}
