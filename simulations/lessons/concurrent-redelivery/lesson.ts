/** The lesson "Two workers, one message": Atomic claim. Its code is ./starter.ts and ./solution.ts. */
import { ACTORS, TABLES, crashAfterDb, crashBeforeAck, duplicate, receiptWorld } from '../kit/receipt-world';
import { receiptsFor } from '../kit/predictions';
import { atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction } from '../kit/scenario';
import { defineLesson } from '../kit/define';
import { CHECK_HOLDS_HINT, checkHoldsWhenActing } from '../kit/check-holds';

export default defineLesson({
  id: 'concurrent-redelivery',
  title: 'Two workers, one message',
  summary: 'The same message reaches two workers at once. Both check "already sent?", both see no, both send. An atomic claim lets exactly one of them win.',
  concept: 'Atomic claim',
  entry: 'handleMessage',
  brief: [
    'A dedupe check only works if checking and claiming are one atomic step. Otherwise two workers holding the same message both ask "done already?", both hear no, and both send.',
    'Here the queue delivers message m1 to worker-1 and worker-2 at the same time. The starter checks the operations table with a SELECT and inserts its row after sending.',
    'Replace check-then-insert with a claim that the primary key makes atomic: INSERT … ON CONFLICT … RETURNING. Exactly one worker gets the row back.',
    'This lesson\'s e-mail provider keeps no idempotency keys, as many do not: your database alone decides who sends. Wrapping the SELECT and the INSERT in one transaction is no way round it either: the lab checks that no e-mail goes out from inside a transaction.',
    'On even-numbered seeds Explore also brings Ada\'s next order, 1043, through the same queue: a key must tell her two orders apart, or the second one never gets its receipt.',
    'On seeds 5, 9, 13, … the workers come up at 09:00:59.9 UTC, a tenth of a second before the minute turns: whatever your claim computes from the clock must not depend on where in the minute it runs.',
  ],
  explanations: {
    starter: 'Check, then act, then record: SELECT the key, send if absent, INSERT afterwards. Both workers can pass the check before either has inserted; the primary key only complains after the second receipt is already out.',
    solution: 'claim() is a single INSERT … ON CONFLICT … WHERE … RETURNING: whichever worker inserts first gets a row back and sends; the other gets nothing back and steps aside.',
  },
  build: (mod, v) => receiptWorld(mod, { emailHonoursKeys: false, seed: v?.seed, offMinute: true }),
  demo: {
    seed: 3,
    faults: [duplicate],
    story: 'The queue hands m1 to both workers at once; both check before either records.',
  },
  faultMenu: [duplicate, crashBeforeAck('worker-1'), crashBeforeAck('worker-2'), crashAfterDb('worker-1', 1), crashAfterDb('worker-2', 1)],
  maxFaults: 3,
  invariants: [atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction, checkHoldsWhenActing],
  tables: TABLES,
  actors: ACTORS,
  crashable: ['worker-1', 'worker-2'],
  lossy: 'email.send',
  prediction: { prompt: 'The message reaches both workers at once. How many receipts will order 1042 get?', ...receiptsFor(1042) },
  hints: {
    nudge: 'Run the demonstration and put the two workers\' lanes side by side: where does each one look in the operations table, and where does each one write? Find the moment both have looked and neither has written.',
    targeted: [
      {
        id: 'at-most-one-receipt/duplicate-delivery',
        invariant: 'at-most-one-receipt',
        fault: { kind: 'duplicate-delivery' },
        text: 'Both workers sent because both decided "it\'s mine" before either claim was visible to the other — or because a claim that lost was not noticed. Take the key with one INSERT … ON CONFLICT and send only when it returned your row (a lock you try but do not check, or an error you swallow, lets the loser through). Replay it and watch both workers\' claims.',
      },
      {
        id: 'at-most-one-receipt',
        invariant: 'at-most-one-receipt',
        text: 'A second receipt went out. Is the winner of the claim decided by the database in one statement, and is its answer read? A claim kept in memory, or a takeover that ignores whether the lease is still running, lets a second worker send.',
      },
      {
        id: 'every-order-receipted',
        invariant: 'every-order-receipted',
        text: 'The receipt never went out. Look at what the worker that lost the claim does, and at what happens to the claim if the worker that won it dies before sending: it must be possible to take it over once its lease has run out.',
      },
      {
        id: 'messages-settled',
        invariant: 'messages-settled',
        text: 'A message was never acknowledged: the worker kept answering \'retry-later\' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over.',
      },
      {
        id: 'no-email-inside-transaction',
        invariant: 'no-email-inside-transaction',
        text: 'The e-mail went out while a database transaction was still open. If that transaction rolls back — a crash, an error — the row that says the work was claimed or done disappears, and the e-mail does not. Claim in a statement of its own, let it commit, then send, then mark done.',
      },
      CHECK_HOLDS_HINT,
    ],
  },
  questions: [
    {
      id: 'concurrent-redelivery-atomic-claim',
      prompt: 'Two workers receive the same message at the same moment. Each runs SELECT on the operations table, finds no row, and sends. Which change lets exactly one of them send?',
      choices: [
        { id: 'check-twice', text: 'Check a second time, after a short sleep, that no row has appeared before sending' },
        {
          id: 'insert-on-conflict',
          text: 'Claim with one INSERT … ON CONFLICT; only the worker that gets a row back sends',
        },
        { id: 'select-in-tx', text: 'Run the SELECT and the send together inside one BEGIN … COMMIT transaction' },
        { id: 'table-per-worker', text: 'Give each worker its own operations table, so their checks never interfere' },
      ],
      correct: 'insert-on-conflict',
      explanation: 'Check-then-act is two steps, and the other worker can act in between; checking again only narrows the gap. A primary key on the operation key makes "is it taken?" and "take it" a single atomic statement: one INSERT wins, the other matches the conflict and returns no row, so that worker backs off. A plain SELECT in a transaction locks nothing (there is no row yet to lock), and separate tables would let both workers win.',
      see: {
        scenario: 'concurrent-redelivery',
        variant: 'starter',
        seed: 3,
        faults: [{ kind: 'duplicate-delivery', message: 'm1' }],
        step: 7,
        expect: 'violated',
        invariant: 'at-most-one-receipt',
      },
    },
  ],
});
