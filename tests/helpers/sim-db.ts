/** One PGlite-backed simulation database per test file: booted once, reset by every run. */
import { PGlite } from '@electric-sql/pglite';
import { PgliteSimDatabase } from '../../simulations/sim-database';

export async function openSimDb(): Promise<{ db: PgliteSimDatabase; pg: PGlite; close(): Promise<void> }> {
  const pg = new PGlite();
  const db = await PgliteSimDatabase.open(pg);
  return { db, pg, close: () => pg.close() };
}

/** The command that replays a run, for failure messages. */
export function replayHint(r: { scenario: string; variant: string; seed: number; faults: unknown[]; choices: number[] }): string {
  const choices = r.choices.length ? ` --choices ${r.choices.join(',')}` : '';
  return `seed=${r.seed}; replay with: npm run sim -- run ${r.scenario} --variant ${r.variant} --seed ${r.seed} --faults '${JSON.stringify(r.faults)}'${choices} --trace`;
}
