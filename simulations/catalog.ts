/**
 * The scenarios in lesson order, as data the course map and the lab list. Pure data: no engine
 * code, so the course map can render it without loading PGlite or the simulator.
 */

/** One scenario as the course map shows it. */
export interface ScenarioEntry {
  /** URL segment and CLI name. */
  id: string;
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
      'The shop saves the order, then crashes before publishing "order placed": nobody downstream ever hears of it. Writing the message to an outbox in the same transaction closes the gap.',
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
