/** The lesson "Once a day, not once per attempt": What identity means. Its code is ./starter.ts and ./solution.ts. */
import { REMINDER_REDRIVE_MS, oneReminderPerDay, reminderDueDates, reminderHorizonMs, reminderRedrivenNextMorningOn, reminderVisibilityFor, remindCrash, reminderEachDueDate, schedulerProcess } from '../kit/key-worlds';
import { receiptsFor } from '../kit/predictions';
import { handlerOf, messagesSettled, workerProcess, type CodeError } from '../kit/scenario';
import { ownRecordNotProviderKey } from '../kit/own-record';
import { defineLesson } from '../kit/define';

/** Seeds 4, 8, 12, …: worker-1 is the only worker, so a reminder it failed comes back to it. */
const oneWorkerOn = (seed: number | undefined) => seed !== undefined && seed % 4 === 0;

export default defineLesson({
  id: 'business-date-reminder',
  title: 'Once a day, not once per attempt',
  summary: 'A reminder may go once per business day. Keyed on the attempt time, a same-day rerun sends it again; keyed on the business date, the rerun sends nothing and tomorrow sends one.',
  concept: 'What identity means',
  entry: 'sendReminder',
  brief: [
    'Some operations may rightly happen again: a payment reminder for order 1042 can go out once every business day. What makes two attempts "the same operation" is a business decision, and the key must say it.',
    'Here the scheduler fires at 09:00, fires again at 23:59 after a late deploy, and fires the next morning. The starter builds its key from the moment of the attempt, so the 23:59 rerun looks like new work and the customer is reminded twice in one day. (Ada\'s other order, 1043, is due on the same days: its reminders are operations of their own.)',
    'Put the business date the reminder is for into the key — never the attempt time. The same-day rerun then finds the key done and sends nothing; the next day is a different key and sends exactly one. (A key of the order alone goes wrong the other way: it silences tomorrow.)',
    'The date of the attempt is not the business date either. If a worker dies before acknowledging the 23:59 rerun, the queue delivers it again after midnight: keyed on the day it runs, it sends a second reminder for the 5th and takes the 6th\'s key, so the 6th gets none.',
    'On seeds 3, 7, 11, … Explore has a scheduler in another region fire the next day\'s reminders at 04:30 UTC, when it is still the 5th in New York: the business date is the one the reminder is for, whatever the clock of the machine that runs it says.',
    'On seeds 5, 13, 21, … the orders are still unpaid a week and a month later, and due again a year later: the scheduler fires again on Monday 12 January, on 5 February and on 5 January of the next year. The same weekday, the same day of the month, or the same month and day is not the same business date.',
    'On seeds 9, 17, 25, … a reminder that fails comes back only 23 h after it was first delivered (the 09:00 ones the next morning), as when failures are redriven in a batch later: it is still the reminder for the day it was due, whenever it runs.',
    'On seeds 2, 6, 10, … a reminder a worker received comes back after 30 s instead of 90 s, while a dead worker\'s 60 s claim is still live: a delivery that finds the reminder claimed but not done must ask to come back later, not acknowledge it.',
    'On seeds 4, 8, 12, … worker-1 runs alone (worker-2 is scaled away), so a reminder it failed comes back to worker-1 itself: nothing it remembers in its own memory about a reminder it did not finish may stop it from finishing it.',
  ],
  explanations: {
    starter: 'The key includes the time of the attempt, so every attempt — a redelivery, a rerun the same day — gets a new key, and another reminder.',
    solution: 'opKey("reminder", { orderId, businessDate }): one operation per order per business date. A same-day rerun finds it done; the next business date is a new operation.',
  },
  build(mod, variation) {
    const handler = handlerOf(mod, 'sendReminder');
    const codeErrors: CodeError[] = [];
    const unwrap = (body: unknown) => (body as { body: unknown }).body;
    return {
      spec: {
        processes: [
          schedulerProcess(variation?.seed),
          workerProcess('worker-1', handler, codeErrors, unwrap),
          // On seeds 4, 8, 12, … worker-1 runs alone, and gets back every reminder it failed.
          ...(oneWorkerOn(variation?.seed) ? [] : [workerProcess('worker-2', handler, codeErrors, unwrap)]),
        ],
        messages: [],
        visibilityTimeoutMs: reminderVisibilityFor(variation?.seed),
        ...(reminderRedrivenNextMorningOn(variation?.seed) ? { firstVisibilityTimeoutMs: REMINDER_REDRIVE_MS } : {}),
        maxReceives: 10,
        providers: { timeoutMs: 30_000, emailHonoursKeys: true },
        horizonMs: reminderHorizonMs(variation?.seed),
      },
      observed: { dueDates: reminderDueDates(variation?.seed) },
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [],
    story: 'No fault at all: the scheduler fires at 09:00, again at 23:59 after a late deploy, and at 09:00 the next day.',
  },
  faultMenu: [
    remindCrash('worker-1', 'before', 'queue.ack'),
    remindCrash('worker-2', 'before', 'queue.ack'),
    // A worker that already acked one message dies before acking the next: the 23:59 rerun, when
    // it is that one, comes back after midnight.
    { kind: 'crash', process: 'worker-1', before: 'queue.ack', nth: 2 },
    { kind: 'crash', process: 'worker-2', before: 'queue.ack', nth: 2 },
    remindCrash('worker-1', 'after', 'email.send'),
    // Between the claim (or a "done" written first) and the send: a handler that marks the
    // reminder done before sending it loses it here.
    remindCrash('worker-1', 'after', 'db'),
    remindCrash('worker-2', 'after', 'db'),
    // The same between a later reminder's claim and its send: the next day's, which no rerun
    // covers, is lost to a delivery that acknowledges a claim it does not hold.
    { kind: 'crash', process: 'worker-1', after: 'db', nth: 3 },
    { kind: 'crash', process: 'worker-2', after: 'db', nth: 3 },
    { kind: 'crash', process: 'worker-1', after: 'db', nth: 5 },
    { kind: 'crash', process: 'worker-2', after: 'db', nth: 5 },
    { kind: 'duplicate-delivery', message: 'p1' },
    { kind: 'duplicate-delivery', message: 'p5' },
    { kind: 'lose-response', call: 'email.send', nth: 1 },
    // …and one whose request never reached it: a timeout then says nothing was sent, and a handler
    // that swallows it and completes the key never sends that reminder.
    { kind: 'lose-request', call: 'email.send', nth: 1 },
  ],
  maxFaults: 3,
  invariants: [oneReminderPerDay, reminderEachDueDate, messagesSettled, ownRecordNotProviderKey],
  tables: ['operations'],
  actors: ['scheduler', 'queue', 'worker-1', 'worker-2', 'postgres', 'email'],
  crashable: ['worker-1', 'worker-2'],
  lossy: 'email.send',
  prediction: {
    prompt: 'The scheduler fires at 09:00, again at 23:59 after a late deploy, and at 09:00 the next day. How many reminders will order 1042 get in all, over the two days?',
    ...receiptsFor(1042, 'reminder', 'reminders'),
  },
  hints: {
    nudge: 'Run the demonstration and read the reminders\' keys in the event log at 09:00, at 23:59 and the next morning. Which attempts are the same operation, and which are not? Does the key say so?',
    targeted: [
      {
        id: 'one-reminder-per-date/crash-queue.ack',
        invariant: 'one-reminder-per-date',
        fault: { kind: 'crash', before: 'queue.ack' },
        text: 'A redelivery after midnight sent a second reminder for the same business date. The date of the attempt is not the business date: take the date the reminder is for from the message, never from the clock (SQL\'s current_date included).',
      },
      {
        id: 'one-reminder-per-date',
        invariant: 'one-reminder-per-date',
        text: 'Two reminders went out for one business date. Is your key the same for the 09:00 run and the 23:59 rerun? The attempt\'s time, its hour or its date as the server sees it change between them; the business date the reminder is for does not.',
      },
      {
        id: 'reminder-each-due-date',
        invariant: 'reminder-each-due-date',
        text: 'A due date got no reminder. A key of the order alone is the same for ever, so tomorrow\'s reminder finds yesterday\'s key done. Put the business date the reminder is for into the key.',
      },
      {
        id: 'messages-settled',
        invariant: 'messages-settled',
        text: 'A message was never acknowledged: the worker kept answering \'retry-later\' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over.',
      },
      {
        id: 'own-record',
        invariant: 'own-record',
        text: 'The provider was asked to send the same e-mail again after the first run had finished, and only its idempotency key kept the customer from a second one. Keep your own record: claim the e-mail\'s key in the operations table, send only when the claim is yours, mark it done after the send. The provider\'s key covers only a crash between the send and that mark.',
      },
    ],
  },
  questions: [
    {
      id: 'business-date-reminder-key',
      prompt: 'A payment reminder for an order may go out once per business day. The scheduler sometimes fires twice in a day after a deploy. Which key is right?',
      choices: [
        { id: 'order-only', text: 'opKey(\'reminder\', { orderId })' },
        { id: 'attempt-time', text: 'opKey(\'reminder\', { orderId, attemptAt: now })' },
        { id: 'business-date', text: 'opKey(\'reminder\', { orderId, businessDate })' },
        { id: 'uuid', text: 'A fresh UUID for each scheduler run' },
      ],
      correct: 'business-date',
      explanation: 'What makes two attempts the same operation is a business decision: here, the same order on the same business date. The date the reminder is for is the same on a same-day rerun and different tomorrow, so the rerun finds the key done and tomorrow sends one. The attempt time and a per-run UUID change on every attempt, so the rerun reminds twice; the order alone is the same for ever, so tomorrow\'s reminder is never sent.',
      see: {
        scenario: 'business-date-reminder',
        variant: 'starter',
        seed: 1,
        faults: [],
        step: 25,
        expect: 'violated',
        invariant: 'one-reminder-per-date',
      },
    },
  ],
});
