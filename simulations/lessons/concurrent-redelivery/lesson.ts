/** The lesson "Two workers, one message": Atomic claim. Its code is ./starter.ts and ./solution.ts. */
import { ACTORS, TABLES, crashAfterDb, crashBeforeAck, duplicate, receiptWorld } from '../kit/receipt-world';
import { receiptsFor } from '../kit/predictions';
import { atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction } from '../kit/scenario';
import { defineLesson } from '../kit/define';

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
  ],
  explanations: {
    starter: 'Check, then act, then record: SELECT the key, send if absent, INSERT afterwards. Both workers can pass the check before either has inserted; the primary key only complains after the second receipt is already out.',
    solution: 'claim() is a single INSERT … ON CONFLICT … WHERE … RETURNING: whichever worker inserts first gets a row back and sends; the other gets nothing back and steps aside.',
  },
  build: (mod) => receiptWorld(mod, { emailHonoursKeys: false }),
  demo: {
    seed: 3,
    faults: [duplicate],
    story: 'The queue hands m1 to both workers at once; both check before either records.',
  },
  faultMenu: [duplicate, crashBeforeAck('worker-1'), crashBeforeAck('worker-2'), crashAfterDb('worker-1', 1), crashAfterDb('worker-2', 1)],
  maxFaults: 3,
  invariants: [atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction],
  tables: TABLES,
  actors: ACTORS,
  crashable: ['worker-1', 'worker-2'],
  lossy: 'email.send',
  prediction: { prompt: 'The message reaches both workers at once. How many receipts will order 1042 get?', ...receiptsFor(1042) },
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
