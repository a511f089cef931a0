/**
 * Playback pacing: how long the lab and presenter mode wait before revealing each trace event.
 * A run is the same whatever its pacing; only the UI's timer changes. Idle stretches — a relay
 * polling an empty outbox, a process waking to find nothing — play fast, so a demonstration at 1×
 * takes seconds and the room watches what matters at the normal pace. The same reading of
 * "idle" gives the outcome: the last event that matters, where presenter mode's End stops.
 *
 * Quiet is judged from what an event did, never from its narration: a wake-up, a sleep, a
 * read that found no rows, the BEGIN/COMMIT around nothing but such reads, and a receive that
 * found no message.
 */
import type { TraceEvent } from '@/simulations/engine/types';

/** Only runs of at least this many quiet events are compressed: a lone empty SELECT (a check that misses) keeps its pace. */
export const MIN_IDLE_STRETCH = 4;
/** A compressed event waits this fraction of the normal delay. */
export const IDLE_PACE = 0.1;

type Pick2 = Pick<TraceEvent, 'i' | 'type' | 'actor' | 'fault' | 'data'>;

const TX_CONTROL = /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK)\b/i;
const READ = /^\s*(SELECT|SHOW|SET\s+LOCAL|SET)\b/i;

interface DbData {
  sql?: unknown;
  rows?: unknown;
  waitingFor?: unknown;
  messageId?: unknown;
}

/**
 * Which events of `trace` are quiet: they change nothing anyone can see. A COMMIT is quiet only
 * when everything its process did since BEGIN was quiet (a COMMIT after an UPDATE matters).
 */
export function quietEvents(trace: readonly Pick2[]): boolean[] {
  const dirtyTx = new Map<string, boolean>();
  return trace.map((e) => {
    if (e.fault) return false;
    if (e.type === 'wake' || e.type === 'sleep') return true;
    const data = (e.data ?? {}) as DbData;
    // A receive that handed over no message: "no messages left".
    if (e.type === 'receive') return typeof data.messageId !== 'string';
    if (e.type !== 'db') return false;
    const sql = typeof data.sql === 'string' ? data.sql : '';
    if (data.waitingFor !== undefined) return false;
    if (TX_CONTROL.test(sql)) {
      if (/^\s*(BEGIN|START)/i.test(sql)) {
        dirtyTx.set(e.actor, false);
        return true;
      }
      const dirty = dirtyTx.get(e.actor) ?? false;
      dirtyTx.delete(e.actor);
      return !dirty;
    }
    const rows = Array.isArray(data.rows) ? data.rows.length : 0;
    const quiet = READ.test(sql) && rows === 0;
    if (!quiet && dirtyTx.has(e.actor)) dirtyTx.set(e.actor, true);
    return quiet;
  });
}

/**
 * Whether each event plays fast: it is in a stretch of at least MIN_IDLE_STRETCH consecutive
 * quiet events. The first such stretch keeps its first MIN_IDLE_STRETCH events at the normal pace,
 * so the room sees one idle cycle (wake, BEGIN, empty SELECT, COMMIT) before the rest hurry by.
 */
export function compressedEvents(trace: readonly Pick2[]): boolean[] {
  const quiet = quietEvents(trace);
  const out = quiet.map(() => false);
  let seenStretch = false;
  for (let k = 0; k < quiet.length; ) {
    if (!quiet[k]) {
      k++;
      continue;
    }
    let end = k;
    while (end < quiet.length && quiet[end]) end++;
    if (end - k >= MIN_IDLE_STRETCH) {
      const from = seenStretch ? k : k + MIN_IDLE_STRETCH;
      for (let j = from; j < end; j++) out[j] = true;
      seenStretch = true;
    }
    k = end;
  }
  return out;
}

/** The delay before revealing event `next`, for a normal per-event delay of `delayMs`. */
export function revealDelayMs(compressed: readonly boolean[], next: number, delayMs: number): number {
  return compressed[next] ? Math.round(delayMs * IDLE_PACE) : delayMs;
}

/** How long a whole run plays back from its first event to its last at `delayMs` per event. */
export function playbackMs(trace: readonly Pick2[], delayMs: number): number {
  const compressed = compressedEvents(trace);
  let total = 0;
  for (let k = 1; k < trace.length; k++) total += revealDelayMs(compressed, k, delayMs);
  return total;
}

/**
 * The outcome: the last event that matters. Trailing quiet events and process finishes after it
 * (a relay polling an empty outbox until the horizon) are not the story; a broken invariant's own
 * event always counts.
 */
export function outcomeIndex(trace: readonly Pick2[], brokenAt: readonly (number | undefined)[] = []): number {
  const quiet = quietEvents(trace);
  let last = trace.length - 1;
  while (last > 0 && (quiet[last] || trace[last]!.type === 'finish')) last--;
  for (const at of brokenAt) if (at !== undefined && at > last && at < trace.length) last = at;
  return last;
}
