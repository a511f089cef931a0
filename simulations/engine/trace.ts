/**
 * The trace of a run: every event in order, each stamped with its index, its simulated time and
 * the step count, and a stable hash of the whole (index, time, actor, type and text of each event).
 * One stream feeds the timeline, the tables, the verdict and the golden tests; checkers read it,
 * they never write it.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { TraceEvent } from './types';

export class Trace {
  readonly events: TraceEvent[] = [];
  /** The trace as hashed, one line per event; digested once when the run ends (the same digest as hashing line by line). */
  private readonly hashLines: string[] = [];

  /**
   * @param hashed whether the run keeps a hash (a verdict-only run does not build the lines)
   * @param onEvent called with every event as it happens
   */
  constructor(
    private readonly hashed: boolean,
    private readonly onEvent?: (event: TraceEvent) => void,
  ) {}

  /** How many events there are so far: the index the next one will get. */
  get length(): number {
    return this.events.length;
  }

  /** Record an event at simulated time `t` (ms since the start), after `step` executed steps. */
  emit(event: Omit<TraceEvent, 'i' | 't' | 'step'>, t: number, step: number): TraceEvent {
    const e: TraceEvent = { i: this.events.length, t, step, ...event };
    this.events.push(e);
    if (this.hashed) this.hashLines.push(`${e.i}|${e.t}|${e.actor}|${e.type}|${e.text}\n`);
    this.onEvent?.(e);
    return e;
  }

  /** The hex SHA-256 of the trace, or '' for a run that keeps none. */
  hash(): string {
    return this.hashed ? bytesToHex(sha256(utf8ToBytes(this.hashLines.join('')))) : '';
  }
}
