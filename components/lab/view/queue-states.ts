/**
 * The queue's messages as they stood at one trace event, read from the trace alone: the messages
 * the world started with and those published since, each ready, in flight (to whom, and how long
 * until its visibility timeout passes), acked or dead-lettered. The engine's queue
 * (simulations/engine/queue.ts) says every change it makes as an event — a delivery, an ack, a
 * redelivery when the timeout passes, a dead letter — so replaying those events gives its state.
 * The run's queue settings add what the trace does not say: the messages waiting at the start,
 * and the visibility timeout and the deliveries allowed, for the countdown and what ends it.
 */
import type { TraceEvent } from '@/simulations/engine/types';
import type { QueueSettings, RunResult } from '@/simulations/run/run';

export type MessageState = 'ready' | 'in-flight' | 'acked' | 'dead-lettered';

/** One message at the chosen event. */
export interface QueueMessage {
  id: string;
  state: MessageState;
  /** How many times it has been handed to a consumer so far. */
  deliveries: number;
  /**
   * In flight: the consumers it was handed to since it was last visible, latest last (two after a
   * duplicate delivery). Empty otherwise.
   */
  holders: string[];
  /**
   * In flight: the holders that crashed after it was handed to them. Their delivery died with
   * them (a restarted process starts afresh): the message waits for its visibility timeout.
   */
  holdersCrashed: string[];
  /**
   * In flight: simulated ms from the chosen event until the visibility timeout passes (0 at the
   * very moment it does). Undefined without the run's queue settings.
   */
  timeoutInMs?: number;
  /** In flight: what the timeout does when it passes: the message is redelivered, or dead-lettered (its last allowed delivery). */
  onTimeout?: 'redeliver' | 'dead-letter';
  /** Acked: by whom. */
  ackedBy?: string;
  /** Trace index of the event that put it in its current state; -1 for a message ready from the start. */
  since: number;
}

interface MessageData {
  messageId?: unknown;
  attempt?: unknown;
  settled?: unknown;
}

const dataOf = (e: TraceEvent): MessageData => (e.data && typeof e.data === 'object' ? (e.data as MessageData) : {});

/**
 * Whether the run has a queue to show: the world declared one with messages, or something was
 * published or delivered. A world whose processes never touch the queue (a batch job) has none.
 */
export function hasQueue(result: Pick<RunResult, 'trace' | 'queueSettings'>): boolean {
  if ((result.queueSettings?.initial.length ?? 0) > 0) return true;
  return result.trace.some((e) => e.type === 'publish' || (e.type === 'receive' && typeof dataOf(e).messageId === 'string'));
}

/**
 * Every message of the queue as it stood after trace event `i` (before the first event when `i`
 * is -1), in the order they entered the queue. Countdowns are measured from event `i`'s simulated
 * time.
 */
export function queueAt(result: Pick<RunResult, 'trace' | 'ledger' | 'queueSettings'>, i: number): QueueMessage[] {
  const settings: QueueSettings | undefined = result.queueSettings;
  const trace = result.trace;
  const last = Math.min(i, trace.length - 1);
  const now = last >= 0 ? trace[last]!.t : 0;
  const messages = new Map<string, QueueMessage & { timeoutAt?: number }>();
  const enter = (id: string, since: number) => {
    if (!messages.has(id)) messages.set(id, { id, state: 'ready', deliveries: 0, holders: [], holdersCrashed: [], since });
  };
  for (const id of settings?.initial ?? []) enter(id, -1);
  // A publish's message id is the ledger's: its entry's `step` is the publish event's index.
  const publishedAt = new Map<number, string>();
  for (const p of result.ledger.published) publishedAt.set(p.step, p.id);
  for (let k = 0; k <= last; k++) {
    const e = trace[k]!;
    if (e.type === 'crash') {
      for (const m of messages.values()) if (m.state === 'in-flight' && m.holders.includes(e.actor) && !m.holdersCrashed.includes(e.actor)) m.holdersCrashed.push(e.actor);
      continue;
    }
    if (e.type === 'publish') {
      const id = publishedAt.get(e.i);
      if (id !== undefined) enter(id, e.i);
      continue;
    }
    const id = dataOf(e).messageId;
    if (typeof id !== 'string') continue;
    if (e.type === 'receive') {
      // A message this run never announced (settings missing): it was there from the start.
      enter(id, -1);
      const m = messages.get(id)!;
      const attempt = dataOf(e).attempt;
      m.deliveries = typeof attempt === 'number' ? attempt : m.deliveries + 1;
      // A duplicate delivery hands it to a second consumer while the first still holds it; the timer restarts.
      const holder = e.target!;
      m.holders = m.state === 'in-flight' ? [...m.holders.filter((h) => h !== holder), holder] : [holder];
      m.holdersCrashed = m.state === 'in-flight' ? m.holdersCrashed.filter((h) => h !== holder) : [];
      m.state = 'in-flight';
      m.since = e.i;
      m.timeoutAt = settings ? e.t + settings.visibilityTimeoutMs : undefined;
      m.onTimeout = settings ? (m.deliveries >= settings.maxReceives ? 'dead-letter' : 'redeliver') : undefined;
    } else if (e.type === 'ack') {
      const m = messages.get(id);
      // An ack of a settled message changes nothing (the queue says "already acked").
      if (!m || dataOf(e).settled === true || m.state === 'acked' || m.state === 'dead-lettered') continue;
      Object.assign(m, { state: 'acked', ackedBy: e.actor, holders: [], holdersCrashed: [], since: e.i, timeoutAt: undefined, onTimeout: undefined });
    } else if (e.type === 'redeliver' || e.type === 'dead-letter') {
      const m = messages.get(id);
      if (!m) continue;
      Object.assign(m, { state: e.type === 'redeliver' ? 'ready' : 'dead-lettered', holders: [], holdersCrashed: [], since: e.i, timeoutAt: undefined, onTimeout: undefined });
    }
  }

  return [...messages.values()].map(({ timeoutAt, ...m }) => {
    const out: QueueMessage = { ...m, holders: [...m.holders], holdersCrashed: [...m.holdersCrashed] };
    if (m.state === 'in-flight' && timeoutAt !== undefined) out.timeoutInMs = Math.max(0, timeoutAt - now);
    else delete out.onTimeout;
    return out;
  });
}

/** "and"-joined names: "worker-1 and worker-2". */
const joined = (names: readonly string[]) => (names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** What a message's state reads as, after its id: "in flight to worker-2 · visible again in 22.0 s". */
export function describeMessage(m: QueueMessage, formatMs: (ms: number) => string): string {
  switch (m.state) {
    case 'in-flight': {
      const parts = [`in flight to ${joined(m.holders)}`];
      if (m.holdersCrashed.length > 0) parts.push(`${joined(m.holdersCrashed)} crashed holding it`);
      if (m.timeoutInMs !== undefined) parts.push(`${m.onTimeout === 'dead-letter' ? 'dead-lettered' : 'visible again'} in ${formatMs(m.timeoutInMs)}`);
      return parts.join(' · ');
    }
    case 'ready':
      return m.deliveries > 0 ? `ready again (delivered ${m.deliveries}× so far)` : 'ready';
    case 'acked':
      return `acked by ${m.ackedBy}`;
    case 'dead-lettered':
      return `dead-lettered after ${m.deliveries} ${m.deliveries === 1 ? 'delivery' : 'deliveries'}`;
  }
}
