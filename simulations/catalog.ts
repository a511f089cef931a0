/**
 * The scenarios in lesson order, as data the course map and the lab list. Pure data: no engine
 * code, so the course map can render it without loading PGlite or the simulator.
 */
import type { ScenarioId } from './scenario-ids';

/** One scenario as the course map shows it. */
export interface ScenarioEntry {
  /** URL segment and CLI name. */
  id: ScenarioId;
  title: string;
  /** One sentence: what goes wrong, and what fixes it. */
  summary: string;
  /** The idea of the lesson this scenario makes visible. */
  concept: string;
}

export const SCENARIO_CATALOG: readonly ScenarioEntry[] = [
  {
    id: 'receipt-redelivery',
    title: 'The redelivered receipt',
    summary:
      'A worker sends the receipt, dies before acknowledging, and the queue hands the message to the next worker. Without a dedupe key the customer gets two e-mails.',
    concept: 'At-least-once delivery',
  },
  {
    id: 'replay-safety',
    title: 'What does a replay cost?',
    summary:
      'One shipped order does eight things, then the same event is handled again: the lookup and the PDF cost credits, the field and the upsert cost nothing, and the charge, the e-mail, the counter and the audit line happen twice unless protected.',
    concept: 'Safe to replay, or not',
  },
  {
    id: 'moving-answers',
    title: 'The answer that moved',
    summary:
      "A lookup is replayed after a crash and the data has moved: the CRM hears two different answers. Storing the first answer under the operation's key and serving the replay from it keeps one.",
    concept: 'Answers that move',
  },
  {
    id: 'batch-credits',
    title: 'Resend only what failed',
    summary:
      'A batch of transformations comes back with 429s, 402s and items never answered. Resending the whole batch re-bills what already succeeded; resending only those indices bills each item once.',
    concept: 'Credits and batches',
  },
  {
    id: 'concurrent-redelivery',
    title: 'Two workers, one message',
    summary:
      'The same message reaches two workers at once. Both check "already sent?", both see no, both send. An atomic claim lets exactly one of them win.',
    concept: 'Atomic claim',
  },
  {
    id: 'lease-expiry',
    title: 'The worker that never came back',
    summary:
      'A worker claims the order and dies. Without a lease the key says "running" forever and the receipt is never sent; with one, another worker takes over.',
    concept: 'Leases',
  },
  {
    id: 'crash-after-send',
    title: 'Sent, but not marked done',
    summary:
      'The crash lands after the e-mail went out and before complete ran. The lease expires and the e-mail goes again, unless the provider honours the same key.',
    concept: 'Provider idempotency keys',
  },
  {
    id: 'random-key-on-retry',
    title: 'A fresh key on every retry',
    summary:
      'A charge times out after the provider acted. A UUID minted inside the retry loop makes the retry look like new work; a key derived from the order does not.',
    concept: 'Operation-derived keys',
  },
  {
    id: 'ambiguous-timeout-charge',
    title: 'The charge that timed out',
    summary:
      'A charge times out after the request left. Without a key the retry charges twice; with one the provider returns the original — while it remembers the key (24 hours here). The next-day rerun is caught only by our own operations table.',
    concept: 'Provider retention',
  },
  {
    id: 'business-date-reminder',
    title: 'Once a day, not once per attempt',
    summary:
      'A reminder may go once per business day. Keyed on the attempt time, a same-day rerun sends it again; keyed on the business date, the rerun sends nothing and tomorrow sends one.',
    concept: 'What identity means',
  },
  {
    id: 'human-rerun',
    title: "Yesterday's job, rerun by hand",
    summary:
      "An operator reruns yesterday's billing job. Without operation keys every charge and receipt repeats; with them, claimed in our own table, the rerun finds everything done.",
    concept: 'Manual reruns',
  },
  {
    id: 'webhook-dedupe',
    title: 'The webhook that arrived twice',
    summary:
      'The payment provider delivers the same event to two handlers at once. Keyed by the event id, the same claim-and-complete pattern turns the repeat into a no-op.',
    concept: 'Inbound webhooks',
  },
  {
    id: 'dual-write',
    title: 'Saved, but never announced',
    summary:
      'The shop saves the order, then crashes before publishing "order placed": nobody downstream ever hears of it, and the retried checkout saves it a second time. Writing the message to an outbox in the same transaction closes the gap: the crash rolls back the uncommitted order row, the retry commits order and message together, a relay publishes.',
    concept: 'The transactional outbox',
  },
  {
    id: 'relay-crash',
    title: 'The relay that published twice',
    summary:
      'The relay crashes after publishing and before COMMIT, so the order goes out again. Only the outbox and an idempotent consumer together make the pipeline effectively once.',
    concept: 'End-to-end effectively once',
  },
  {
    id: 'relay-concurrency',
    title: 'Two relays, one outbox',
    summary:
      'Two relays read the same unpublished rows and both publish them. FOR UPDATE SKIP LOCKED in one transaction lets them split the work instead.',
    concept: 'SKIP LOCKED',
  },
];
