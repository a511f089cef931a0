// Written by scripts/gen.ts (npm run gen) from simulations/lessons/. Do not edit.
export const LESSON_IDS = [
  "receipt-redelivery",
  "replay-safety",
  "moving-answers",
  "batch-credits",
  "concurrent-redelivery",
  "lease-expiry",
  "crash-after-send",
  "random-key-on-retry",
  "ambiguous-timeout-charge",
  "business-date-reminder",
  "human-rerun",
  "webhook-dedupe",
  "dual-write",
  "relay-crash",
  "relay-concurrency"
] as const;
