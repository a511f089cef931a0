/**
 * Under the timeline's lanes: the queue's messages and the claims' leases as they stood at the
 * selected event — each message ready, in flight (to whom, and the visibility timeout's countdown
 * in simulated seconds), acked or dead-lettered; each claim's lease left, or expired. States are
 * words and a badge, never colour alone. What the selected event carries between lanes is said
 * here too, for those who do not see the token travel.
 */
import type { LabRun } from '@/simulations/run/lab-run';
import { claimsAt, describeLease, hasClaims, type Claim } from './leases';
import { describeMessage, hasQueue, queueAt, type MessageState, type QueueMessage } from './queue-states';
import { formatSimTime, shortKey } from './snapshots';
import type { Travel } from './travel';

export interface QueueAndLeasesProps {
  run: LabRun;
  /** The selected trace event; nothing is shown before the first. */
  selected: number;
  /** What the selected event carries between lanes, if anything. */
  travel: Travel | null;
  /** Type size: presenter mode reads from the back of the room ('large'), or on a projector 800 px tall or less ('medium'). */
  size?: 'normal' | 'medium' | 'large';
}

const STATE_TONE: Record<MessageState, string> = {
  'in-flight': 'bg-amber-50 ring-amber-400 dark:bg-amber-400/10 dark:ring-amber-400/60',
  ready: 'bg-slate-50 ring-slate-300 dark:bg-slate-800/60 dark:ring-slate-600',
  acked: 'bg-emerald-50 ring-emerald-400 dark:bg-emerald-400/10 dark:ring-emerald-400/60',
  'dead-lettered': 'bg-red-50 ring-red-400 dark:bg-red-400/10 dark:ring-red-400/60',
};

const LEASE_TONE: Record<Claim['status'], string> = {
  held: 'bg-sky-50 ring-sky-400 dark:bg-sky-400/10 dark:ring-sky-400/60',
  expired: 'bg-red-50 ring-red-400 dark:bg-red-400/10 dark:ring-red-400/60',
  never: 'bg-red-50 ring-red-400 dark:bg-red-400/10 dark:ring-red-400/60',
  done: 'bg-emerald-50 ring-emerald-400 dark:bg-emerald-400/10 dark:ring-emerald-400/60',
  none: 'bg-slate-50 ring-slate-300 dark:bg-slate-800/60 dark:ring-slate-600',
};

const TEXT = { normal: 'text-xs', medium: 'text-base', large: 'text-lg' } as const;

/** More messages than this and the settled ones are listed by state, so the strip stays a line or two. */
const ONE_BY_ONE = 3;

export function QueueAndLeases({ run, selected, travel, size = 'normal' }: QueueAndLeasesProps) {
  const trace = run.result.trace;
  if (selected < 0 || selected >= trace.length) return null;
  const showQueue = hasQueue(run.result);
  const showClaims = hasClaims(run);
  if (!showQueue && !showClaims) return null;
  const messages = showQueue ? queueAt(run.result, selected) : [];
  const claims = showClaims ? claimsAt(run, selected) : [];
  const at = formatSimTime(trace[selected]!.t);
  const chip = `inline-flex items-baseline gap-1.5 rounded-md px-1.5 py-0.5 ring-1`;
  const heading = 'font-semibold text-slate-500 uppercase tracking-wide dark:text-slate-400';

  return (
    <div
      role="group"
      aria-label={`Queue and leases after event ${selected + 1}, at ${at}`}
      data-testid="queue-and-leases"
      className={`flex flex-wrap items-baseline gap-x-3 gap-y-1 border-t border-slate-200 px-4 py-1.5 dark:border-slate-800 ${TEXT[size]} text-slate-800 dark:text-slate-100`}
    >
      {travel && <p className="sr-only">At this event {travel.description}.</p>}
      {showQueue && (
        <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
          <h3 className={heading}>Queue</h3>
          {messages.length === 0 ? (
            <span className="text-slate-600 dark:text-slate-400">no messages yet</span>
          ) : (
            <ul className="flex flex-wrap items-baseline gap-x-2 gap-y-1">{messageItems(messages, chip)}</ul>
          )}
        </div>
      )}
      {showClaims && (
        <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
          <h3 className={heading}>Leases</h3>
          {claims.length === 0 ? (
            <span className="text-slate-600 dark:text-slate-400">no claims yet</span>
          ) : (
            <ul className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
              {claims.map((c) => (
                <li key={`${c.table}:${c.key}`} data-claim={c.key} data-lease={c.status} className={`${chip} ${LEASE_TONE[c.status]}`}>
                  <span className="font-mono font-semibold" title={c.key}>
                    {shortKey(c.key)}
                  </span>
                  <span className="tabular-nums">{`${c.state && c.status !== 'done' ? `${c.state} · ` : ''}${describeLease(c, formatSimTime)}`}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

/** One chip per message, or, for many, one per message in flight and one per other state listing its messages. */
function messageItems(messages: QueueMessage[], chip: string) {
  const one = (m: QueueMessage) => (
    <li key={m.id} data-message={m.id} data-state={m.state} className={`${chip} ${STATE_TONE[m.state]}`}>
      <span className="font-mono font-semibold">{m.id}</span>
      <span className="tabular-nums">{describeMessage(m, formatSimTime)}</span>
    </li>
  );
  if (messages.length <= ONE_BY_ONE) return messages.map(one);
  const groups = (['ready', 'acked', 'dead-lettered'] as const)
    .map((state) => ({ state, ids: messages.filter((m) => m.state === state).map((m) => m.id) }))
    .filter((g) => g.ids.length > 0);
  return [
    ...messages.filter((m) => m.state === 'in-flight').map(one),
    ...groups.map((g) => (
      <li key={g.state} data-state-group={g.state} className={`${chip} ${STATE_TONE[g.state]}`}>
        <span>{g.state === 'dead-lettered' ? 'dead-lettered' : g.state}:</span>
        <span className="font-mono font-semibold">{g.ids.join(', ')}</span>
      </li>
    )),
  ];
}
