/**
 * The scenarios' ids in lesson order, and nothing else: small enough for the root layout's first
 * scripts (the database provider asks whether an address is a real lab before it boots PGlite).
 * `SCENARIO_CATALOG` (./catalog.ts) lists the same ids in the same order; a test holds them equal.
 */
export const SCENARIO_IDS = [
  'receipt-redelivery',
  'replay-safety',
  'moving-answers',
  'batch-credits',
  'concurrent-redelivery',
  'lease-expiry',
  'crash-after-send',
  'random-key-on-retry',
  'ambiguous-timeout-charge',
  'business-date-reminder',
  'human-rerun',
  'webhook-dedupe',
  'dual-write',
  'relay-crash',
  'relay-concurrency',
] as const;

export type ScenarioId = (typeof SCENARIO_IDS)[number];

const KNOWN: ReadonlySet<string> = new Set(SCENARIO_IDS);

export function isScenarioId(id: string): id is ScenarioId {
  return KNOWN.has(id);
}
