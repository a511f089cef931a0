/** The lesson "The redelivered receipt": At-least-once delivery. Its code is ./starter.ts and ./solution.ts. */
import { ACTORS, TABLES, crashAfterDb, crashAfterSend, crashBeforeAck, duplicate, receiptWorld } from '../kit/receipt-world';
import { receiptsFor } from '../kit/predictions';
import { atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction } from '../kit/scenario';
import { defineLesson } from '../kit/define';

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
  ],
  explanations: {
    starter: 'Sends the receipt every time the message arrives. Correct only if every message arrives exactly once, which no queue promises.',
    solution: 'The consumer from lib/: the key is derived from the order, claim is one atomic INSERT … ON CONFLICT with a lease, complete marks it done, and the same key goes to the e-mail provider. A redelivery finds the key done and only acknowledges.',
  },
  build: (mod) => receiptWorld(mod),
  demo: {
    seed: 1,
    faults: [crashBeforeAck('worker-1')],
    story: 'worker-1 crashes after sending the receipt, before its ack; the queue redelivers after the 30 s visibility timeout.',
  },
  faultMenu: [crashBeforeAck('worker-1'), crashBeforeAck('worker-2'), crashAfterDb('worker-1', 1), crashAfterDb('worker-2', 2), crashAfterSend('worker-1'), duplicate],
  maxFaults: 3,
  invariants: [atMostOneReceipt, everyOrderReceipted, messagesSettled, noEmailInsideTransaction],
  tables: TABLES,
  actors: ACTORS,
  crashable: ['worker-1', 'worker-2'],
  lossy: 'email.send',
  prediction: { prompt: 'worker-1 crashes after sending, before it acknowledges. How many receipts will order 1042 get?', ...receiptsFor(1042) },
  questions: [
    {
      id: 'receipt-redelivery-what-happens',
      prompt: 'worker-1 sends the receipt for order 1042 and crashes before it acknowledges the message. What happens next with the starter code?',
      choices: [
        { id: 'dropped', text: 'Nothing: the queue already handed the message out, so it forgets it' },
        {
          id: 'redelivered',
          text: 'After the visibility timeout the queue delivers the message again, and the starter sends a second receipt',
        },
        {
          id: 'queue-acks',
          text: 'The queue sees that the e-mail went out and acknowledges the message itself',
        },
        {
          id: 'provider-refuses',
          text: 'The message comes back, but the e-mail provider notices the repeat and refuses to send it',
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
      prompt: 'Your fix derives the order\'s key, claims it in the operations table with a lease, and marks it done after sending. It holds on the demonstration, a crash before the acknowledgement. But it calls the e-mail provider without the key. What will Explore find?',
      choices: [
        {
          id: 'nothing',
          text: 'Nothing: the demonstration\'s crash was the dangerous one, and the claim covers it',
        },
        {
          id: 'gap',
          text: 'Schedules where the worker crashes after the send and before complete: the lease runs out, another worker claims the key and sends a second receipt',
        },
        { id: 'deadlock', text: 'Schedules where two workers wait for each other\'s claim forever' },
        {
          id: 'never-sent',
          text: 'Schedules where the receipt is never sent, because the crashed worker holds the key for good',
        },
      ],
      correct: 'gap',
      explanation: 'The demonstration is one schedule. There the crash falls after complete, and the redelivery finds the key done. Move the crash to between the send and complete and the row still says running: the lease expires, the next worker claims the key, and nothing in our database can tell it that the e-mail already went out. Only the provider knows, so pass it the same key. That is why a lesson counts as done only once an exploration finds no such schedule. No deadlock either: the claim is one INSERT … ON CONFLICT, which at most waits a moment for a concurrent claim\'s statement to commit, never for the other worker\'s work, because the lease is a value in the row, not a lock held. And the lease is exactly what keeps a crashed worker from holding the key for good. (See it happen opens the lesson “Sent, but not marked done”: its starter is exactly this code.)',
      see: {
        scenario: 'crash-after-send',
        variant: 'starter',
        seed: 1,
        faults: [{ kind: 'crash', process: 'worker-1', after: 'email.send' }],
        step: 20,
        expect: 'violated',
        invariant: 'at-most-one-receipt',
      },
    },
  ],
});
