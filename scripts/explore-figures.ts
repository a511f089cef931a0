/**
 * The Node side of `npm run bench:lab`'s Explore figures: the explorations the lab runs (the same
 * lessons, variants, 200 schedules from seed 1, each with its drawn fault plan), on PGlite in Node,
 * each variant's first and second exploration in this process after the database has booted, as
 * a page's first and second. Prints one JSON line: `{ lesson, variant, nth, ms, cpuMs }[]` (cpuMs: the
 * whole process's CPU time, which a loaded machine stretches less than wall time).
 *
 * Run bundled (esbuild, as `npm run bench` runs the engine), never under tsx, whose `__name`
 * wrappers cost a few per cent.
 */
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_START_PARAMS } from '../simulations/db/pglite-start';
import { PgliteSimDatabase } from '../simulations/db/pglite';
import { explore } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';

const [lessonsArg = 'receipt-redelivery,concurrent-redelivery,dual-write', variantsArg = 'starter,solution', runsArg = '200'] = process.argv.slice(2);
const runs = Number(runsArg);

const pg = new PGlite({ startParams: [...PGLITE_START_PARAMS] });
const db = await PgliteSimDatabase.open(pg);
const figures: { lesson: string; variant: string; nth: 'first' | 'second'; ms: number; cpuMs: number; violations: number }[] = [];
for (const lesson of lessonsArg.split(',')) {
  const scenario = lessonById(lesson);
  for (const variant of variantsArg.split(',') as ('starter' | 'solution')[]) {
    for (const nth of ['first', 'second'] as const) {
      const started = performance.now();
      const cpu = process.cpuUsage();
      const result = await explore(db, { scenario, code: scenario.variants[variant].code, variant, runs });
      const used = process.cpuUsage(cpu);
      figures.push({ lesson, variant, nth, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, violations: result.violations });
    }
  }
}
await pg.close();
console.log(JSON.stringify(figures));
