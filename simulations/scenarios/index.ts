/** Every scenario the engine runs, in lesson order (the same order as catalog.ts). */
import type { Scenario } from '../lessons/kit/scenario';
import { randomKeyOnRetry } from './charges';
import { ambiguousTimeoutCharge, businessDateReminder, humanRerun } from './keys';
import { batchCredits, movingAnswers } from './metered';
import { dualWrite, relayConcurrency, relayCrash, webhookDedupe } from './outbox';
import { concurrentRedelivery, crashAfterSendScenario, leaseExpiry, receiptRedelivery } from './receipts';
import { replaySafety } from './replay-safety';

export const SCENARIOS: readonly Scenario[] = [
  receiptRedelivery,
  replaySafety,
  movingAnswers,
  batchCredits,
  concurrentRedelivery,
  leaseExpiry,
  crashAfterSendScenario,
  randomKeyOnRetry,
  ambiguousTimeoutCharge,
  businessDateReminder,
  humanRerun,
  webhookDedupe,
  dualWrite,
  relayCrash,
  relayConcurrency,
];

/** The scenario `id`, or an error listing the ones there are. */
export function scenarioById(id: string): Scenario {
  const s = SCENARIOS.find((x) => x.id === id);
  if (!s) throw new Error(`No scenario "${id}". Scenarios: ${SCENARIOS.map((x) => x.id).join(', ')}`);
  return s;
}
