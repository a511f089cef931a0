/**
 * The lab's status line, read from the controller's state with its own API (`state.matches`):
 * what it shows, and what a screen reader hears where that differs.
 */
import type { SnapshotFrom } from 'xstate';
import type { labMachine } from './lab-machine';

/** The part of the controller's snapshot the status reads. */
type Phase = Pick<SnapshotFrom<typeof labMachine>, 'matches'>;

/**
 * What the status says to a screen reader, where that differs from what it shows: while
 * playing, "Playing" once rather than a new count every half second; when paused (a step with →),
 * the event's own sentence after its number, which sighted learners read off the timeline.
 */
export function spokenStatus(shown: string, state: Phase, context: { run: { result: { trace: { text: string }[] } } | null; visibleUpTo: number }): string {
  if (shown.startsWith('Playing event')) return 'Playing';
  if (shown.startsWith('Paused at event') && state.matches('paused')) {
    const event = context.run?.result.trace[context.visibleUpTo];
    return event ? `${shown}: ${event.text}` : shown;
  }
  return shown;
}

export function statusText(
  state: Phase,
  db: { status: string; restarts: number; waitingForQuery?: boolean },
  context: { run: { result: { trace: unknown[]; verdict: string } } | null; visibleUpTo: number; selected: number; explorer: { status: string } },
  loading: boolean,
): string {
  if (db.status === 'booting') return db.restarts > 0 ? 'Restarting the in-browser database…' : 'Starting the in-browser database…';
  if (db.status === 'error') return 'The database failed to start.';
  // The worker answers in order: a run or exploration sent during the query panel's query waits for it.
  if (db.waitingForQuery && (loading || state.matches('exploring'))) return 'Waiting for your query to finish…';
  if (loading) return 'Running…';
  const total = context.run ? context.run.result.trace.length : 0;
  if (state.matches({ running: 'playing' })) return `Playing event ${context.visibleUpTo + 1} of ${total}`;
  if (state.matches('paused')) return `Paused at event ${context.visibleUpTo + 1} of ${total}`;
  if (state.matches('finished')) {
    if (context.run?.result.verdict === 'error') return 'Finished: the code did not load';
    // Scrubbed back (timeline, slider, arrows): say which moment the tables and the log show.
    return context.selected >= 0 && context.selected < total - 1 ? `Finished; showing event ${context.selected + 1} of ${total}` : 'Finished';
  }
  if (state.matches('exploring')) return 'Exploring…';
  return 'Ready';
}
