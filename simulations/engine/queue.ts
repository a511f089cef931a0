/**
 * The queue: at-least-once delivery. Each message is an XState actor on the simulated clock
 * (`ready → inFlight → acked`, or back to `ready` when its visibility timeout passes, or
 * dead-lettered after too many deliveries). A duplicate-delivery fault hands a message that a
 * consumer still holds to a second consumer; one placed at a moment after the message's first
 * delivery (`afterMs`) also brings back a message already acknowledged, as a copy the queue failed
 * to delete, in flight again until it is acknowledged. Receive, ack and publish are steps of the
 * process that asks; this module does what each does when the scheduler executes it.
 */
import { createActor, type ActorRefFrom } from 'xstate';
import type { VirtualClock } from './clock';
import type { FaultPlan } from './fault-plan';
import { messageMachine } from './machines';
import { structuredCloneSafe } from './plain-copy';
import type { Delivery, TraceEvent } from './types';
import type { Published } from '../providers/registry';

type MessageActor = ActorRefFrom<typeof messageMachine>;
type Emit = (event: Omit<TraceEvent, 'i' | 't' | 'step'>) => TraceEvent;

/** What the queue tells a worker's lifecycle actor (a crashed worker's restarts are counted there). */
export type WorkerSignal = 'IDLE' | 'HANDLE';

export class Queue {
  private readonly messages = new Map<string, MessageActor>();
  /** Simulated time of each message's first delivery: moments of duplicates count from it. */
  private readonly firstDelivered = new Map<string, number>();

  constructor(
    private readonly clock: VirtualClock,
    private readonly settings: { visibilityTimeoutMs: number; firstVisibilityTimeoutMs?: number; maxReceives: number },
    private readonly plan: FaultPlan,
    private readonly emit: Emit,
    private readonly stepsRun: () => number,
  ) {}

  /** Put message `id` in the queue, ready (`deliveries`: handed over that often before, for a copy that outlived its ack). */
  add(id: string, body: unknown, deliveries = 0): MessageActor {
    const actor = createActor(messageMachine, {
      clock: this.clock,
      input: { id, body, visibilityTimeoutMs: this.settings.visibilityTimeoutMs, firstVisibilityTimeoutMs: this.settings.firstVisibilityTimeoutMs, maxReceives: this.settings.maxReceives, deliveries },
    });
    actor.on('redelivered', ({ deliveries }) =>
      this.emit({ actor: 'queue', type: 'redeliver', text: `visibility timeout: message ${id} is visible again (delivered ${deliveries}× so far)`, data: { messageId: id } }),
    );
    actor.on('deadLettered', ({ deliveries }) =>
      this.emit({ actor: 'queue', type: 'dead-letter', text: `message ${id} dead-lettered after ${deliveries} deliveries`, data: { messageId: id } }),
    );
    actor.start();
    this.messages.set(id, actor);
    return actor;
  }

  /** Whether a message is still ready or in flight, or acknowledged with a copy still to come back. */
  unsettled(): boolean {
    for (const [id, a] of this.messages) {
      const v = a.getSnapshot().value;
      if (v === 'ready' || v === 'inFlight') return true;
      if (v === 'acked' && this.firstDelivered.has(id) && this.plan.lateCopyPending(id, this.stepsRun())) return true;
    }
    return false;
  }

  private readyMessage(): [string, MessageActor] | null {
    for (const entry of this.messages) if (entry[1].getSnapshot().value === 'ready') return entry;
    return null;
  }

  /**
   * A message that a duplicate-delivery fault due by now hands over again, and that fault: one a
   * consumer holds, or one acknowledged when the fault is placed at a moment (a late copy).
   */
  private duplicateCandidate() {
    for (const [id, actor] of this.messages) {
      const state = actor.getSnapshot().value;
      if (state !== 'inFlight' && state !== 'acked') continue;
      const first = this.firstDelivered.get(id);
      const due = this.plan.duplicateDue(id, this.stepsRun(), first === undefined ? null : this.clock.now() - first, state === 'acked');
      if (due) return { id, actor, fault: due, late: state === 'acked' };
    }
    return null;
  }

  /** Whether a receive can be answered now: a message, a due duplicate, or "no messages left" once nothing can come. */
  canReceive(producing: boolean): boolean {
    return this.readyMessage() !== null || this.duplicateCandidate() !== null || (!this.unsettled() && !producing);
  }

  /** Execute `pid`'s receive: the next ready message (or a due duplicate), or null when none is left. */
  receive(pid: string, signal: (s: WorkerSignal) => void): Delivery | null {
    let entry = this.readyMessage();
    let duplicate: ReturnType<Queue['duplicateCandidate']> = null;
    if (!entry) {
      duplicate = this.duplicateCandidate();
      if (duplicate) {
        this.plan.useDuplicate(duplicate.id, duplicate.fault);
        // A late copy: the message is back in flight, with the deliveries it had.
        const actor = duplicate.late ? this.revive(duplicate.id, duplicate.actor) : duplicate.actor;
        entry = [duplicate.id, actor];
      }
    }
    if (!entry) {
      this.emit({ actor: 'queue', type: 'receive', target: pid, text: `queue → ${pid}: no messages left` });
      signal('IDLE');
      return null;
    }
    const [id, actor] = entry;
    actor.send({ type: 'RECEIVE' });
    const ctx = actor.getSnapshot().context;
    if (!this.firstDelivered.has(id)) this.firstDelivered.set(id, this.clock.now());
    if (ctx.deliveries === 1) {
      // Moments of duplicates count from here: the clock stops at each, so one is handed over then.
      for (const ms of this.plan.duplicateMoments(id)) this.clock.stopIn(ms);
    }
    const delivery: Delivery = { messageId: id, attempt: ctx.deliveries, body: ctx.body };
    const received = this.emit({
      actor: 'queue',
      type: 'receive',
      target: pid,
      fault: duplicate ? 'duplicate-delivery' : undefined,
      text: duplicate?.late
        ? `queue → ${pid}: message ${id} again, after it was acknowledged: a copy the queue failed to delete (delivery ${ctx.deliveries})`
        : duplicate
          ? `queue → ${pid}: message ${id} again, while another consumer still holds it (delivery ${ctx.deliveries})`
          : `queue → ${pid}: message ${id} (delivery ${ctx.deliveries})`,
      data: delivery,
    });
    if (duplicate) this.plan.fired(duplicate.fault, received.i);
    signal('HANDLE');
    return structuredCloneSafe(delivery);
  }

  /** Message `id`, acknowledged, back in the queue as a ready copy with the deliveries it had. */
  private revive(id: string, acked: MessageActor): MessageActor {
    const { body, deliveries } = acked.getSnapshot().context;
    acked.stop();
    return this.add(id, body, deliveries);
  }

  /** Execute `pid`'s ack of `delivery`. A settled message's actor is final: the ack changes nothing, and says so. */
  ack(pid: string, delivery: Delivery, signal: (s: WorkerSignal) => void): void {
    const actor = this.messages.get(delivery?.messageId);
    if (!actor) throw new Error(`ack of unknown message ${String(delivery?.messageId)}`);
    const before = actor.getSnapshot().value;
    const settled = before === 'acked' || before === 'deadLettered';
    if (!settled) actor.send({ type: 'ACK' });
    const note = before === 'acked' ? ' (already acked)' : before === 'deadLettered' ? ' (too late: already dead-lettered)' : '';
    this.emit({ actor: pid, type: 'ack', target: 'queue', text: `${pid} → queue: ack ${delivery.messageId}${note}`, data: { messageId: delivery.messageId, settled } });
    signal('IDLE');
  }

  /** Execute `pid`'s publish: recorded in `published` (the ledger's), and queued as a new message. */
  publish(pid: string, topic: string, body: unknown, published: Published[], step: number): void {
    const id = `p${published.length + 1}`;
    published.push({ id, topic, body: structuredCloneSafe(body), by: pid, step });
    this.add(id, { topic, body });
    this.emit({ actor: pid, type: 'publish', target: 'queue', text: `${pid} → queue: publish ${topic} ${JSON.stringify(body)}`, data: { topic, body } });
  }

  /** Every message's final state and delivery count; stops the actors. */
  finish(): { id: string; state: string; deliveries: number }[] {
    const queue = [...this.messages.entries()].map(([id, actor]) => {
      const snap = actor.getSnapshot();
      return { id, state: String(snap.value), deliveries: snap.context.deliveries };
    });
    for (const actor of this.messages.values()) actor.stop();
    return queue;
  }
}
