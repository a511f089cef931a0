/**
 * The lessons, in order: the one list. The course map, the lab, the CLI, the tests and the light
 * catalog (./catalog.generated.ts, written from this list by `npm run gen`) all follow it.
 * Adding a lesson is one folder beside this file and one line here.
 */
import { LESSON_CODE } from './code.generated';
import { withCode, type Lesson, type LessonDefinition } from './kit/define';
import receiptRedelivery from './receipt-redelivery/lesson';
import replaySafety from './replay-safety/lesson';
import movingAnswers from './moving-answers/lesson';
import batchCredits from './batch-credits/lesson';
import concurrentRedelivery from './concurrent-redelivery/lesson';
import leaseExpiry from './lease-expiry/lesson';
import crashAfterSend from './crash-after-send/lesson';
import randomKeyOnRetry from './random-key-on-retry/lesson';
import ambiguousTimeoutCharge from './ambiguous-timeout-charge/lesson';
import businessDateReminder from './business-date-reminder/lesson';
import humanRerun from './human-rerun/lesson';
import webhookDedupe from './webhook-dedupe/lesson';
import dualWrite from './dual-write/lesson';
import relayCrash from './relay-crash/lesson';
import relayConcurrency from './relay-concurrency/lesson';

/** The ordered list. */
export const LESSON_DEFINITIONS: readonly LessonDefinition[] = [
  receiptRedelivery,
  replaySafety,
  movingAnswers,
  batchCredits,
  concurrentRedelivery,
  leaseExpiry,
  crashAfterSend,
  randomKeyOnRetry,
  ambiguousTimeoutCharge,
  businessDateReminder,
  humanRerun,
  webhookDedupe,
  dualWrite,
  relayCrash,
  relayConcurrency,
];

/** Every lesson with its code, in order. */
export const LESSONS: readonly Lesson[] = LESSON_DEFINITIONS.map((d) => {
  const code = LESSON_CODE[d.id];
  if (!code) throw new Error(`lesson ${d.id}: its starter.ts and solution.ts are not in code.generated.ts; run \`npm run gen\``);
  return withCode(d, code);
});

/** The lesson `id`, or an error listing the ones there are. */
export function lessonById(id: string): Lesson {
  const s = LESSONS.find((x) => x.id === id);
  if (!s) throw new Error(`No scenario "${id}". Scenarios: ${LESSONS.map((x) => x.id).join(', ')}`);
  return s;
}
