/**
 * Virtual time. One clock per run, advanced only by the scheduler: timers fire in deadline order
 * (ties in the order they were set), never on the host's event loop. It satisfies XState's `Clock`
 * interface, so machines' `after` delays run on the same simulated milliseconds as SQL `now()`.
 */
/** XState's clock interface (createActor(machine, { clock })). */
export interface Clock {
  setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown;
  clearTimeout(id: unknown): void;
}

interface Timer {
  id: number;
  at: number;
  seq: number;
  fn: () => void;
}

export class VirtualClock implements Clock {
  private nowMs: number;
  private timers: Timer[] = [];
  private nextId = 1;
  /** The millisecond of the last transactionInstant(), and how many began in it before the last. */
  private instantMs = NaN;
  private begunInInstant = 0;

  constructor(startMs: number) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  /**
   * The instant a transaction beginning now starts at, the clock its now() reads: this
   * millisecond, plus a microsecond for each transaction that began in it before (at most 999).
   * Two transactions on a real server do not start at the same microsecond, so a key or a row
   * made of now() is not shared by two that begin in one simulated moment.
   */
  transactionInstant(): number {
    if (this.nowMs !== this.instantMs) {
      this.instantMs = this.nowMs;
      this.begunInInstant = 0;
    } else if (this.begunInInstant < 999) {
      this.begunInInstant++;
    }
    return this.nowMs + this.begunInInstant / 1000;
  }

  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): number {
    const id = this.nextId++;
    this.timers.push({ id, at: this.nowMs + Math.max(0, timeoutMs), seq: id, fn });
    return id;
  }

  /** Make time stop `inMs` from now, with nothing to run then: whoever waits for the next deadline is woken at that moment. */
  stopIn(inMs: number): void {
    this.setTimeout(() => {}, inMs);
  }

  clearTimeout(id: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  /** The earliest pending deadline, or null when no timer is set. */
  nextDeadline(): number | null {
    let min: number | null = null;
    for (const t of this.timers) if (min === null || t.at < min) min = t.at;
    return min;
  }

  /** Move time forward to `targetMs`, firing every timer due on the way, in order. */
  advanceTo(targetMs: number): void {
    for (;;) {
      let due: Timer | null = null;
      for (const t of this.timers) {
        if (t.at <= targetMs && (due === null || t.at < due.at || (t.at === due.at && t.seq < due.seq))) due = t;
      }
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      if (due.at > this.nowMs) this.nowMs = due.at;
      due.fn();
    }
    if (targetMs > this.nowMs) this.nowMs = targetMs;
  }
}
