/**
 * A moment of simulated time, as every view of a run prints it (the ledger, the event log, the
 * timeline and the invariants' evidence alike), so one moment never reads two ways on one screen.
 */

/**
 * Simulated milliseconds since the start, as "30.0 s" (or "12 min 5.0 s" past ten minutes; past an
 * hour "25 h 0 min 3 s", "15 h 1 min", "24 h": whole parts left off where they are zero).
 */
export function formatSimTime(ms: number): string {
  if (ms < 600_000) return `${(ms / 1000).toFixed(1)} s`;
  // Reruns come hours or a day later: "25 h 0 min 3 s" reads better than "1500 min 3.0 s", and
  // "24 h" better than "24 h 0 min 0.0 s".
  if (ms >= 3_600_000) {
    const hours = Math.floor(ms / 3_600_000);
    const minutes = Math.floor((ms - hours * 3_600_000) / 60_000);
    const rest = ms - hours * 3_600_000 - minutes * 60_000;
    if (rest === 0) return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
    return `${hours} h ${minutes} min ${rest % 1000 === 0 ? rest / 1000 : (rest / 1000).toFixed(1)} s`;
  }
  const minutes = Math.floor(ms / 60_000);
  const rest = (ms - minutes * 60_000) / 1000;
  return `${minutes} min ${rest.toFixed(1)} s`;
}
