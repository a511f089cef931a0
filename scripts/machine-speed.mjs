/**
 * How fast this machine runs PGlite at all, for the benchmarks to print beside their figures: the
 * median round trip of `SELECT 1` through `PGlite.query` in Node. FACTS.md measured ~57 µs on the
 * machine the targets were set on; every figure here stretches roughly with this one.
 */

/** Median `SELECT 1` in µs on `pg` (a PGlite), after a warm-up. */
export async function select1Micros(pg, { warmUp = 100, samples = 400 } = {}) {
  const times = [];
  for (let i = 0; i < warmUp + samples; i++) {
    const t = performance.now();
    await pg.query('SELECT 1');
    if (i >= warmUp) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[times.length >> 1] * 1000);
}

/** FACTS.md's figure for the same round trip. */
export const FACTS_SELECT1_US = 57;
