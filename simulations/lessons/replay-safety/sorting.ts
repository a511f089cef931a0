/**
 * The lesson's table of operations as pure data: what each one costs when it is run a second time,
 * and which bin it belongs in — safe to replay as it is, safe only with a provider idempotency key,
 * or safe only if we dedupe it ourselves. The `replay-safety` scenario runs every one of them twice;
 * the sorting exercise in the lab reads this list. No engine code here, so the UI can import it
 * without loading the simulator. The shape and ids are a stable contract.
 */

/** Where an operation belongs once you know what its replay costs. */
export type ReplayBin = 'safe' | 'needs-key' | 'needs-dedupe';

/** One row of the table. */
export interface ReplayOperation {
  /** Stable id (also the step name in the `replay-safety` scenario's ledger). */
  id: string;
  /** What the operation is, in a few words. */
  label: string;
  /** The correct bin. */
  bin: ReplayBin;
  /** One line: what running it a second time costs. */
  replayCost: string;
  /** A bin that is half right for this operation, and what to say to whoever chose it. */
  halfRight?: { bin: ReplayBin; note: string };
}

/** What each bin means, for the exercise's headings. */
export const REPLAY_BINS: readonly { id: ReplayBin; label: string; meaning: string }[] = [
  { id: 'safe', label: 'Safe to replay', meaning: 'A second run leaves the world as the first did; at most it costs credits again.' },
  { id: 'needs-key', label: 'Needs an idempotency key', meaning: 'Safe only if the provider gets the same key and returns the original result.' },
  { id: 'needs-dedupe', label: 'Needs dedupe', meaning: 'Safe only if we record that it was done and skip it the second time.' },
];

/** The operations, in the order the lesson's table lists them. */
export const REPLAY_OPERATIONS: readonly ReplayOperation[] = [
  {
    id: 'lookup',
    label: 'A lookup (GET) on a metered API',
    bin: 'safe',
    replayCost: 'One more credit, and the answer may differ if the data moved.',
  },
  {
    id: 'transform',
    label: 'A transformation POST (HMAC, HTML to PDF)',
    bin: 'safe',
    replayCost: 'One more credit; the same input gives the same output and nothing is created.',
  },
  {
    id: 'set-field',
    label: "Setting a field to a value (status = 'shipped')",
    bin: 'safe',
    replayCost: 'Nothing: the field already holds that value.',
  },
  {
    id: 'upsert',
    label: 'An upsert keyed by a stable id',
    bin: 'safe',
    replayCost: 'Nothing: the row with that id is written again with the same values.',
  },
  {
    id: 'charge',
    label: 'Charging a card through a payment provider',
    bin: 'needs-key',
    replayCost: 'A second charge, unless the same idempotency key goes with it.',
    halfRight: {
      bin: 'needs-dedupe',
      note: 'Half right: recording the charge in our own table is needed too — it is what still knows the charge a day later, when the provider may have forgotten the key. But a crash between the charge and that record repeats it, and within the day only the provider can recognise the repeat — by the key. So the key is the part the charge cannot do without.',
    },
  },
  {
    id: 'email',
    label: 'Sending an e-mail or SMS',
    bin: 'needs-dedupe',
    replayCost: 'A second message in the customer’s inbox: many providers take no idempotency key, so we record the send ourselves.',
    halfRight: {
      bin: 'needs-key',
      note: 'Half right: where the e-mail provider takes a key, pass it too, as “Sent, but not marked done” does. But many e-mail and SMS providers take none, and none remembers a key forever, so the send must also be recorded on our side.',
    },
  },
  {
    id: 'counter',
    label: 'Incrementing a counter',
    bin: 'needs-dedupe',
    replayCost: 'A wrong total: the count goes up twice for one event.',
  },
  {
    id: 'append',
    label: 'Appending a row (an audit or ledger line)',
    bin: 'needs-dedupe',
    replayCost: 'A duplicate row, and every sum over the table is wrong.',
  },
];
