/**
 * Which trace events carry something from one actor to another, as the timeline draws them
 * travelling: a delivery (queue → consumer), an ack and a publish (process → queue), a provider
 * call (caller → provider) and its answer (provider → caller). A request or response lost on the
 * way travels part of the way and stops. Everything is read from the event's own fields (actor,
 * target, type, fault, data) and the ledger, never from its narration.
 */
import type { TraceEvent } from '@/simulations/engine/types';
import type { RunResult } from '@/simulations/run/run';

export interface Travel {
  from: string;
  to: string;
  /** The token's text: a message id, "ack m1", the call's verb, "answer". */
  label: string;
  /** The whole sentence, for a screen reader and the token's tooltip. */
  description: string;
  /** It never arrives: a lost request or response, an answer too slow for the caller. */
  lost: boolean;
}

const messageIdOf = (e: TraceEvent): string | null => {
  const id = (e.data as { messageId?: unknown } | undefined)?.messageId;
  return typeof id === 'string' ? id : null;
};

/** What event `e` carries between two actors, or null when it carries nothing. */
export function travelOf(e: TraceEvent, ledger?: Pick<RunResult['ledger'], 'published'>): Travel | null {
  switch (e.type) {
    case 'receive': {
      const id = messageIdOf(e);
      // "No messages left" hands nothing over.
      if (!id || !e.target) return null;
      return { from: e.actor, to: e.target, label: id, description: `message ${id} travels from ${e.actor} to ${e.target}`, lost: false };
    }
    case 'ack': {
      const id = messageIdOf(e);
      const target = e.target ?? 'queue';
      return { from: e.actor, to: target, label: id ? `ack ${id}` : 'ack', description: `the ack${id ? ` of ${id}` : ''} travels from ${e.actor} to ${target}`, lost: false };
    }
    case 'publish': {
      const id = ledger?.published.find((p) => p.step === e.i)?.id;
      const target = e.target ?? 'queue';
      return { from: e.actor, to: target, label: id ?? 'publish', description: `${id ? `message ${id}` : 'a message'} travels from ${e.actor} to ${target}`, lost: false };
    }
    case 'call': {
      if (!e.target) return null;
      const verb = e.call?.split('.')[1] ?? 'call';
      const lost = e.fault === 'lose-request';
      return { from: e.actor, to: e.target, label: verb, description: `the ${verb} request ${lost ? 'is lost on its way' : 'travels'} from ${e.actor} to ${e.target}`, lost };
    }
    case 'reply': {
      if (!e.target) return null;
      return { from: e.actor, to: e.target, label: 'answer', description: `the answer travels from ${e.actor} to ${e.target}`, lost: false };
    }
    case 'timeout': {
      // The caller gives up: an answer that was lost (or too slow) left the provider and never arrived.
      if (!e.target || (e.fault !== 'lose-response' && e.fault !== 'slow-response')) return null;
      const why = e.fault === 'lose-response' ? 'is lost on its way' : 'is too slow to arrive';
      return { from: e.target, to: e.actor, label: 'answer', description: `the answer from ${e.target} ${why} to ${e.actor}`, lost: true };
    }
    default:
      return null;
  }
}
