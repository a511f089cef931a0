/** The lesson "Sent, but not marked done": Provider idempotency keys. Its code is ./starter.ts and ./solution.ts. */
import { ACTORS, TABLES, crashAfterSend, crashBeforeAck, duplicate, receiptWorld } from '../kit/receipt-world';
import { receiptsFor } from '../kit/predictions';
import { atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction } from '../kit/scenario';
import { ownRecordNotProviderKey } from '../kit/own-record';
import { defineLesson } from '../kit/define';
import { CHECK_HOLDS_HINT, checkHoldsUnlessKeyed } from '../kit/check-holds';

export default defineLesson({
  id: 'crash-after-send',
  title: 'Sent, but not marked done',
  summary: 'The crash lands after the e-mail went out and before complete ran. The lease expires and the e-mail goes again, unless the provider honours the same key.',
  concept: 'Provider idempotency keys',
  entry: 'handleMessage',
  brief: [
    'The claim protects everything in our own database. The e-mail leaves it. If the worker dies after the provider sent the receipt and before complete() runs, the row still says running.',
    'Here worker-1 crashes right after the send. Its lease runs out, another worker takes the key over, and sends again: the starter claims and completes correctly but does not tell the provider which operation this is.',
    'Pass the operation key to the provider as its idempotency key. The retry then gets the original e-mail back instead of sending a new one.',
    'On even-numbered seeds Explore also brings Ada\'s next order, 1043, through the same queue: a key must tell her two orders apart, or the second one never gets its receipt.',
    'On seeds 3, 11, 19, … Explore brings the workers up 30 s before Sunday 31 May ends in UTC, on seeds 7, 23, 39, … 30 s before it ends in New York and on seeds 15, 31, 47, … in Anchorage, so a takeover after a crash falls on the next day, week and month in that zone: a key must name the operation, not the date, week or month it was tried, in any time zone.',
    'On seeds 5, 9, 13, … the queue hands a message that was not acknowledged out again only 23 h after its first delivery, the next morning (as a redrive of overnight failures would), and every 30 s after that: past midnight in nearly every time zone, and still inside the provider\'s 24 h memory of keys.',
  ],
  explanations: {
    starter: 'Claim and complete with a lease, but the send carries no idempotency key, so a takeover after a crash sends a second receipt.',
    solution: 'The same key goes to the provider. Whoever sends after a takeover gets the first e-mail back (replayed: true) and nothing new reaches the customer.',
  },
  build: (mod, v) => receiptWorld(mod, { seed: v?.seed, nearMidnight: true, nextMorning: true }),
  demo: {
    seed: 1,
    faults: [crashAfterSend('worker-1')],
    story: 'worker-1 crashes after the provider sent the e-mail, before complete().',
  },
  // A lost request and a crash just before the send catch the look-alikes a wrong-fix hunt found
  // passing: completing before sending, and treating a timed-out send as sent.
  faultMenu: [
    crashAfterSend('worker-1'),
    crashAfterSend('worker-2'),
    crashBeforeAck('worker-1'),
    { kind: 'crash', process: 'worker-1', before: 'email.send' },
    { kind: 'lose-response', call: 'email.send', nth: 1 },
    { kind: 'lose-request', call: 'email.send', nth: 1 },
    { kind: 'slow-response', call: 'email.send', nth: 1, ms: 90_000 },
    duplicate,
  ],
  maxFaults: 3,
  invariants: [atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction, ownRecordNotProviderKey, checkHoldsUnlessKeyed],
  tables: TABLES,
  actors: ACTORS,
  crashable: ['worker-1', 'worker-2'],
  lossy: 'email.send',
  prediction: { prompt: 'worker-1 crashes after the e-mail went out, before complete(). How many receipts will order 1042 get?', ...receiptsFor(1042) },
  hints: {
    nudge: 'Run the demonstration and stop at the crash: the provider\'s ledger already shows the e-mail, and the operations table still says running. When the lease runs out and worker-2 claims the key, what could it read to learn that the e-mail went?',
    targeted: [
      {
        id: 'at-most-one-receipt/crash-email.send',
        invariant: 'at-most-one-receipt',
        fault: { kind: 'crash', after: 'email.send' },
        text: 'The worker crashed between the send and complete, and the next worker sent again. Only the provider saw the first e-mail: pass it an idempotency key that is the same on every attempt. A key with the delivery time, the minute or a random part in it is a new key to the provider.',
      },
      {
        id: 'at-most-one-receipt',
        invariant: 'at-most-one-receipt',
        text: 'A second receipt went out. Whatever key you give the e-mail provider must come out the same on every delivery and every worker: derive it from the order, exactly as the claim\'s key.',
      },
      {
        id: 'every-order-receipted',
        invariant: 'every-order-receipted',
        text: 'The receipt never went out. Look for complete() or the acknowledgement before the send, or a timed-out send that was taken as done: a send that timed out may not have happened, so the message must come back and the send be retried with the same key.',
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
      {
        id: 'own-record',
        invariant: 'own-record',
        text: 'The provider was asked to send the same e-mail again after the first handling had finished, and only its idempotency key kept the customer from a second one. Your consumer must know from its own record that the work is done: claim the key in the operations table, read what the claim tells you (a key already done means acknowledge and stop), and mark it done after the send. The provider\'s key covers only the gap between a send and a crash before complete.',
      },
      CHECK_HOLDS_HINT,
    ],
  },
  questions: [
    {
      id: 'crash-after-send-provider-key',
      prompt: 'The claim-and-complete consumer crashes after the provider sent the e-mail and before complete() ran. The lease runs out and worker-2 claims the key. What prevents a second e-mail?',
      choices: [
        { id: 'longer-lease', text: 'A longer lease, so worker-2 cannot claim the key until worker-1 has surely finished sending' },
        { id: 'complete-first', text: 'Calling complete() before sending the e-mail, so that worker-2 finds the key already marked done' },
        {
          id: 'provider-key',
          text: 'The operation\'s key passed to the e-mail provider, which answers a repeat with the first e-mail',
        },
        { id: 'ack-first', text: 'Acknowledging the message before sending, so the queue never hands it to worker-2 at all' },
      ],
      correct: 'provider-key',
      explanation: 'The e-mail was sent in someone else\'s system, so our database cannot know it happened. A longer lease only delays the takeover. Completing or acknowledging before sending trades the duplicate for a lost receipt: crash between the two and no e-mail is ever sent. When the provider accepts an idempotency key, passing the operation\'s key narrows the gap, and closes it for as long as the provider remembers the key — the second send is answered with the first e-mail\'s id.',
      see: {
        scenario: 'crash-after-send',
        variant: 'solution',
        seed: 1,
        faults: [{ kind: 'crash', process: 'worker-1', after: 'email.send' }],
        expect: 'held',
        invariant: 'at-most-one-receipt',
      },
    },
  ],
});
