/** The lesson "The redelivered receipt": At-least-once delivery. Its code is ./starter.ts and ./solution.ts. */
import { ACTORS, TABLES, crashAfterDb, crashAfterSend, crashBeforeAck, duplicate, receiptWorld } from '../kit/receipt-world';
import { receiptsFor } from '../kit/predictions';
import { atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction } from '../kit/scenario';
import { ownRecordNotProviderKey } from '../kit/own-record';
import { defineLesson } from '../kit/define';
import { CHECK_HOLDS_HINT, checkHoldsUnlessKeyed } from '../kit/check-holds';

export default defineLesson({
  id: 'receipt-redelivery',
  title: 'The redelivered receipt',
  summary: 'A worker sends the receipt, dies before acknowledging, and the queue hands the message to the next worker. Without a dedupe key the customer gets two e-mails.',
  concept: 'At-least-once delivery',
  entry: 'handleMessage',
  brief: [
    'A queue can only forget a message once the consumer acknowledges it, and the consumer can only acknowledge after the work is done. Between the two there is a gap.',
    'Here worker-1 sends the receipt and crashes before its ack reaches the queue. Thirty seconds later the message is visible again and a worker handles it a second time.',
    'The starter sends on every delivery. Make the second delivery harmless: derive a key from the order, claim it atomically, mark it done, and give the e-mail provider the same key.',
    'The demonstration needs only the claim. Explore also crashes a worker after its send and before complete: the key is never marked done, so once its lease runs out another worker takes it over and sends again, and only a provider that honours the key turns that second send into a replay of the first. The lesson "Sent, but not marked done" looks at that gap on its own.',
    'On even-numbered seeds Explore also brings Ada\'s next order, 1043, through the same queue: a key must tell her two orders apart, or the second one never gets its receipt.',
    'On seeds 3, 6, 9, … the queue waits 90 s, not 30 s, before it hands an unacknowledged message out again. By then a dead worker\'s 60 s claim has run out, and only a takeover of the expired claim gets the receipt sent.',
    'Explore also loses a send on its way to the provider: the call times out and nothing was sent. Only a key left unfinished lets a later delivery send the receipt after all.',
  ],
  explanations: {
    starter: 'Sends the receipt every time the message arrives. Correct only if every message arrives exactly once, which no queue promises.',
    solution: 'The consumer from lib/: the key is derived from the order, claim is one atomic INSERT … ON CONFLICT with a lease, complete marks it done, and the same key goes to the e-mail provider. A redelivery finds the key done and only acknowledges.',
  },
  build: (mod, v) => receiptWorld(mod, { seed: v?.seed, slowRedelivery: true }),
  demo: {
    seed: 1,
    faults: [crashBeforeAck('worker-1')],
    story: 'worker-1 crashes after sending the receipt, before its ack; the queue redelivers after the 30 s visibility timeout.',
  },
  faultMenu: [crashBeforeAck('worker-1'), crashBeforeAck('worker-2'), crashAfterDb('worker-1', 1), crashAfterDb('worker-2', 2), crashAfterSend('worker-1'), duplicate, { kind: 'lose-request', call: 'email.send', nth: 1 }],
  maxFaults: 3,
  invariants: [atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction, ownRecordNotProviderKey, checkHoldsUnlessKeyed],
  tables: TABLES,
  actors: ACTORS,
  crashable: ['worker-1', 'worker-2'],
  lossy: 'email.send',
  prediction: { prompt: 'worker-1 crashes after sending, before it acknowledges. How many receipts will order 1042 get?', ...receiptsFor(1042) },
  hints: {
    nudge: 'Run the demonstration and follow m1 along the timeline: worker-1 sends the receipt and dies before its ack, and 30 s later the same message reaches a worker again. At that moment, open the tables: is there anything the second handling could read to learn that the first one already sent?',
    targeted: [
      {
        id: 'at-most-one-receipt/duplicate-delivery',
        invariant: 'at-most-one-receipt',
        fault: { kind: 'duplicate-delivery' },
        text: 'Two workers held m1 at the same moment, and both sent. Checking for a row and then writing one are two steps, and the other worker fits between them. Replay it and watch both workers\' database steps before either send: taking the key must be one statement that only one of them can win.',
      },
      {
        id: 'at-most-one-receipt/crash-email.send',
        invariant: 'at-most-one-receipt',
        fault: { kind: 'crash', after: 'email.send' },
        text: 'The worker died after the e-mail went out and before the work was recorded as done. Nothing in your tables can tell the next worker that the e-mail went: only the provider saw it. Watch the second send in the replay, then give the e-mail provider the same key you claimed, so a repeat gets the first e-mail back.',
      },
      {
        id: 'at-most-one-receipt',
        invariant: 'at-most-one-receipt',
        text: 'A second receipt went out for order 1042. Is your key the same on every delivery of this order? A time, an attempt number or a random part makes it new on each redelivery. And is what you claimed kept in the database, where every worker and every restart can read it, rather than in a variable?',
      },
      {
        id: 'every-order-receipted',
        invariant: 'every-order-receipted',
        text: 'Order 1042 never got its receipt. Look for the moment the work was marked done, or the message acknowledged, before the e-mail was sent: a crash between the two leaves nothing to redo. Mark it done only after the send has returned.',
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
      id: 'receipt-redelivery-what-happens',
      prompt: 'worker-1 sends the receipt for order 1042 and crashes before it acknowledges the message. What happens next with the starter code?',
      choices: [
        { id: 'dropped', text: 'Nothing more: the queue handed the message out once, and a queue never hands it out twice' },
        {
          id: 'redelivered',
          text: 'The visibility timeout runs out, the queue delivers the message again, and a second receipt goes out',
        },
        {
          id: 'queue-acks',
          text: 'The queue sees the e-mail go out through the provider and acknowledges the message on the worker\'s behalf',
        },
        {
          id: 'provider-refuses',
          text: 'The message comes back, but the e-mail provider spots the repeated receipt and refuses to send it',
        },
      ],
      correct: 'redelivered',
      explanation: 'A queue may only forget a message once it is acknowledged, and the worker died before it could. So the message comes back — that is at-least-once delivery working as designed. The starter keeps no record of what it already did, and it sends without an idempotency key, so neither our database nor the provider can tell the repeat from new work: order 1042 gets two receipts.',
      see: {
        scenario: 'receipt-redelivery',
        variant: 'starter',
        seed: 1,
        faults: [{ kind: 'crash', process: 'worker-1', before: 'queue.ack' }],
        step: 9,
        expect: 'violated',
        invariant: 'at-most-one-receipt',
      },
    },
    {
      id: 'receipt-redelivery-one-schedule',
      prompt: 'A changed handler gets order 1042 exactly one receipt on the demonstration: worker-1 crashes before its acknowledgement, the message comes back, and nothing is sent twice. What does that result tell you about the change?',
      choices: [
        {
          id: 'proven',
          text: 'That it is correct: a crash just before the acknowledgement is the worst moment there is',
        },
        {
          id: 'gap',
          text: 'Only that this one schedule is safe: a crash at another moment may still break it',
        },
        {
          id: 'seed-only',
          text: 'That any order of the two workers\' steps is safe with this fault, since only the fault decides',
        },
        {
          id: 'never-lost',
          text: 'That no receipt can go missing either, since the redelivered message was handled to the end',
        },
      ],
      correct: 'gap',
      explanation: 'A run is one schedule: one seed, one fault at one moment. A change can survive it and still break when the crash falls somewhere else — after the e-mail went out but before the work was recorded, say, or while two workers hold the same message. The order in which the workers\' steps interleave varies from schedule to schedule, so the same fault can end differently in another one. And a redelivery that ended well here says nothing about a schedule where the first worker dies at another step. That is what Explore is for: it runs hundreds of schedules with faults drawn from the lesson, and the lesson counts as done only when none of them breaks your code.',
    },
  ],
});
