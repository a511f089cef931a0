/**
 * A moment of simulated time, as every view of a run prints it (the ledger, the event log, the
 * timeline and the invariants' evidence alike), so one moment never reads two ways on one screen.
 */

/** The first instant of every simulated run (Monday 2026-01-05, 09:00 UTC): traces never depend on the host clock. */
export const SIM_EPOCH_MS = Date.UTC(2026, 0, 5, 9, 0, 0);

/**
 * An instant as ISO text to the microsecond where it has one (`2026-01-05T09:00:00.000001Z`), to
 * the millisecond otherwise. Instants are simulated ms, with microseconds as the fraction
 * (VirtualClock.transactionInstant).
 */
export function isoInstant(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.min(999, Math.round((ms - whole) * 1000));
  const iso = new Date(whole).toISOString();
  return micros === 0 ? iso : `${iso.slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The wall-clock time (UTC) of a moment an hour or more into a run, as a brief says it: "Jan 5,
 * 23:59", "Jan 6, 11:00:03" (whole seconds, shown when not zero). Null earlier in a run, where
 * seconds since the start say more (leases, visibility timeouts) and the clock still reads 09:xx.
 */
export function simClockTime(ms: number): string | null {
  if (ms < 3_600_000) return null;
  const d = new Date(SIM_EPOCH_MS + ms);
  const two = (n: number) => String(n).padStart(2, '0');
  const seconds = d.getUTCSeconds();
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}${seconds ? `:${two(seconds)}` : ''}`;
}

/**
 * A moment in a sentence: the time since the start, and past an hour the wall clock too, so a
 * brief's "at 23:59" can be found in the run: "14 h 59 min (Jan 5, 23:59)".
 */
export function formatSimMoment(ms: number): string {
  const clock = simClockTime(ms);
  return clock ? `${formatSimTime(ms)} (${clock})` : formatSimTime(ms);
}

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
