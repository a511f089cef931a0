/** The lesson "The relay that published twice": End-to-end effectively once. Its code is ./starter.ts and ./solution.ts. */
import { receiptsFor } from '../kit/predictions';
import { CUSTOMER_EMAIL, NEXT_ORDER, atMostOneReceiptPerCommittedOrder, crash, everyCommittedOrderReceipted, libRelayPass, nothingLost, relayProcess, shopProcess } from '../kit/outbox-world';
import { placeOrder } from '../../../lib/outbox';
import { SLOW_VISIBILITY_TIMEOUT_MS, handlerOf, messagesSettled, secondOrderOn, slowRedeliveryOn, startsLate, type CodeError, workerProcess } from '../kit/scenario';
import { ownRecordNotProviderKey } from '../kit/own-record';
import { defineLesson } from '../kit/define';

/** A worker whose machine is lost when it crashes: it does not come back. */
const LOST_MACHINE = { maxRestarts: 0, restartDelayMs: 5_000 };
/** When the replica that finishes a lost worker's work comes up. */
const REPLICA_UP_MS = 10_000;

export default defineLesson({
  id: 'relay-crash',
  title: 'The relay that published twice',
  summary: 'The relay crashes after publishing and before COMMIT, so the order goes out again. Only the outbox and an idempotent consumer together make the pipeline effectively once.',
  concept: 'End-to-end effectively once',
  entry: 'handleMessage',
  brief: [
    'The outbox guarantees the message is never lost, not that it goes out once: the relay publishes, then marks the rows published and commits. If the relay crashes between the two, the restarted relay publishes the same rows again.',
    'Here the shop uses the outbox correctly and the relay crashes after publishing, before COMMIT. The starter consumer sends a receipt for every "order-placed" message it receives.',
    'Each half does what it can guarantee: the outbox makes sure nothing is lost, the idempotent consumer makes sure a duplicate is never acted on. Make the consumer idempotent and the whole pipeline is effectively once.',
    'On even-numbered seeds Explore has the same customer place a second order right after the first: a key must tell her two orders apart, or the second one never gets its receipt.',
    'On those seeds worker-1 runs on a machine that is lost when it crashes: it does not come back, and worker-2, a replica that comes up 10 s in, reads the same queue. A message worker-1 was handling when it died is finished by another worker, under another name.',
    'On seeds 3, 6, 9, … the queue waits 90 s, not 30 s, before it hands an unacknowledged message out again. If the worker died holding a 60 s claim, the claim has run out by then, and only a takeover of the expired claim gets the receipt sent.',
  ],
  explanations: {
    starter: 'Acts on every delivery: the relay\'s at-least-once republish becomes a second receipt.',
    solution: 'The consumer from lib/: a republished message finds its key done and is only acknowledged.',
  },
  build(mod, variation) {
    const handler = handlerOf(mod, 'handleMessage');
    const codeErrors: CodeError[] = [];
    // On even seeds the customer orders again right after: a key must tell her two orders apart.
    const secondOrder = secondOrderOn(variation?.seed);
    const shop = shopProcess(
      async (order, env) => {
        const id = await placeOrder(env.db, order);
        if (secondOrder) await placeOrder(env.db, NEXT_ORDER);
        return id;
      },
      codeErrors,
      false,
      {},
      false,
    );
    const toMessage = (body: unknown) => ({ orderId: Number((body as { body?: { orderId?: unknown } })?.body?.orderId), customer: CUSTOMER_EMAIL });
    return {
      spec: {
        processes: [
          shop,
          relayProcess('relay-1', libRelayPass, codeErrors),
          // On even seeds worker-1's machine is lost with its crash, and a replica that comes up
          // later finishes its work: a takeover then comes from another worker, not worker-1 restarted.
          ...(secondOrder
            ? [{ ...workerProcess('worker-1', handler, codeErrors, toMessage), restart: LOST_MACHINE }, startsLate(workerProcess('worker-2', handler, codeErrors, toMessage), REPLICA_UP_MS, 'a replica of worker-1, to come up 10 s in')]
            : [workerProcess('worker-1', handler, codeErrors, toMessage)]),
        ],
        messages: [],
        visibilityTimeoutMs: slowRedeliveryOn(variation?.seed) ? SLOW_VISIBILITY_TIMEOUT_MS : 30_000,
        maxReceives: 10,
        // A send gives up after 30 s, inside the handlers' 60 s lease (lib/consumer.ts: a lease longer than the work).
        providers: { timeoutMs: 30_000 },
        horizonMs: 3_600_000,
      },
      observed: {},
      codeErrors,
    };
  },
  demo: { seed: 1, faults: [crash('relay-1', 'after', 'queue.publish')], story: 'relay-1 crashes after publishing the order, before its COMMIT; it restarts and publishes it again.' },
  // The worker crashing right after its claim (db 1) and after a second statement (db 2, a "done"
  // marked before the send) catches done-before-send handlers (a wrong-fix hunt found one passing).
  faultMenu: [
    crash('relay-1', 'after', 'queue.publish'),
    crash('relay-1', 'after', 'db', 3),
    crash('worker-1', 'before', 'queue.ack'),
    crash('worker-1', 'after', 'email.send'),
    crash('worker-1', 'after', 'db', 1),
    crash('worker-1', 'after', 'db', 2),
    // A send whose request never reached the provider: the worker times out and nothing was sent;
    // a handler that swallows the timeout and completes the key loses the receipt.
    { kind: 'lose-request', call: 'email.send', nth: 1 },
  ],
  maxFaults: 2,
  invariants: [atMostOneReceiptPerCommittedOrder, everyCommittedOrderReceipted, nothingLost, messagesSettled, ownRecordNotProviderKey],
  tables: ['orders', 'outbox', 'operations'],
  // worker-2, the replica of even seeds, gets a lane where a run starts it (Timeline's lanesFor).
  actors: ['shop', 'relay-1', 'postgres', 'queue', 'worker-1', 'email'],
  crashable: ['relay-1', 'worker-1'],
  lossy: 'email.send',
  prediction: { prompt: 'The relay crashes after publishing, before COMMIT, and publishes again. How many receipts will order 1 get?', ...receiptsFor(1) },
  hints: {
    nudge: 'Run the demonstration and follow order-placed in the queue\'s lane: how many times is it published, and why? Then look at what the consumer does with each copy.',
    targeted: [
      {
        id: 'at-most-one-receipt/crash-relay-1',
        invariant: 'at-most-one-receipt',
        fault: { kind: 'crash', process: 'relay-1' },
        text: 'The relay published the same row twice after its crash, and the consumer acted on both. The relay cannot avoid that; the consumer must: claim a key derived from the order (not from the delivery time), in the operations table, and send only when the claim is yours. Replay it and watch the second copy arrive.',
      },
      {
        id: 'at-most-one-receipt',
        invariant: 'at-most-one-receipt',
        text: 'A second receipt went out. The consumer needs the claim-and-complete pattern: one atomic claim in the database, the e-mail sent outside any transaction, and done only after the send.',
      },
      {
        id: 'every-order-receipted',
        invariant: 'every-order-receipted',
        text: 'A committed order never got its receipt. Look for the key marked done before the e-mail was sent, with no provider key: a crash between the two loses the receipt.',
      },
      {
        id: 'nothing-lost',
        invariant: 'nothing-lost',
        text: 'A committed order was never published. The relay must mark a row published only after it was published, in the same transaction that read it.',
      },
      {
        id: 'messages-settled',
        invariant: 'messages-settled',
        text: 'A message was never acknowledged: the worker kept answering \'retry-later\' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over.',
      },
      {
        id: 'own-record',
        invariant: 'own-record',
        text: 'The provider was asked to send the same e-mail again after the first handling had finished, and only its idempotency key kept the customer from a second one. Your consumer must know from its own record that the work is done: claim the key in the operations table, read what the claim tells you (a key already done means acknowledge and stop), and mark it done after the send. The provider\'s key covers only the gap between a send and a crash before complete.',
      },
    ],
  },
  questions: [
    {
      id: 'relay-crash-consumer',
      prompt: 'The relay publishes an outbox row, then crashes before its COMMIT marks the row published; after a restart it publishes the row again. Where should that duplicate be dealt with?',
      choices: [
        { id: 'fix-relay', text: 'In the relay: change it so that it publishes each outbox row exactly once, whatever crashes' },
        {
          id: 'consumer',
          text: 'In the consumer: the relay is at-least-once by design, so the consumer dedupes the repeat',
        },
        { id: 'nowhere', text: 'Nowhere: the queue recognises a message it has already seen and drops the copy' },
        { id: 'publish-after-commit', text: 'In the relay\'s order of work: mark the row published, COMMIT, and only then publish' },
      ],
      correct: 'consumer',
      explanation: 'Publishing and marking the row are writes to two systems, so the relay cannot make them atomic either; it can only promise that nothing is lost. Marking first and publishing after the COMMIT brings back the lost message. So the receiving side dedupes: keyed by the order, the consumer acts on the first "order-placed" and ignores the repeat. Some brokers do drop a repeat, but only within a short window (SQS FIFO: five minutes) and only for their own message ids, so a relay restarting later still gets through. Each half guarantees what it can, and together they are effectively once.',
      see: {
        scenario: 'relay-crash',
        variant: 'starter',
        seed: 1,
        faults: [{ kind: 'crash', process: 'relay-1', after: 'queue.publish' }],
        step: 25,
        expect: 'violated',
        invariant: 'at-most-one-receipt',
      },
    },
  ],
});
