/**
 * The business date a reminder e-mail was for: the one on the message its worker was handling when
 * it sent it (that worker's last delivery before the send), else the calendar day it went out. A
 * retry after midnight is still the previous day's reminder. Shared by business-date-reminder's
 * invariants and the lab's ledger, so both count reminders the same way.
 */
import { SIM_EPOCH_MS } from '../../engine/sim-time';
import type { Delivery, TraceEvent } from '../../engine/types';

/** The calendar date (UTC) of a simulated time. */
export function simDate(atMs: number): string {
  return new Date(SIM_EPOCH_MS + atMs).toISOString().slice(0, 10);
}

export function businessDateOf(trace: readonly TraceEvent[], email: { by: string; atMs: number; step: number }): string {
  for (let i = Math.min(email.step, trace.length) - 1; i >= 0; i--) {
    const ev = trace[i]!;
    if (ev.type !== 'receive' || ev.actor !== 'queue' || ev.target !== email.by) continue;
    const d = (ev.data as Delivery<{ body?: { businessDate?: unknown } }> | undefined)?.body?.body?.businessDate;
    if (typeof d === 'string') return d;
  }
  return simDate(email.atMs);
}
