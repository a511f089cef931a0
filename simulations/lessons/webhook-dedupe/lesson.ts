/** The lesson "The webhook that arrived twice": Inbound webhooks. Its code is ./starter.ts and ./solution.ts. */
import { receiptsFor } from '../kit/predictions';
import { crash } from '../kit/outbox-world';
import { everyPaymentConfirmed, fullerProviderOn, nearMidnightWebhooksOn, onePaymentEmailPerPayment, webhooksFor } from '../kit/webhook-world';
import { NEAR_MIDNIGHT_MS } from '../kit/receipt-world';
import { handlerOf, messagesSettled, noEmailInsideTransaction, startsLate, type CodeError, workerProcess } from '../kit/scenario';
import type { Delivery } from '../../engine/types';
import { ownRecordNotProviderKey } from '../kit/own-record';
import { defineLesson } from '../kit/define';
import { CHECK_HOLDS_HINT, checkHoldsUnlessKeyed } from '../kit/check-holds';

export default defineLesson({
  id: 'webhook-dedupe',
  title: 'The webhook that arrived twice',
  summary: 'The payment provider delivers the same event to two handlers at once. Keyed by the event id, the same claim-and-complete pattern turns the repeat into a no-op.',
  concept: 'Inbound webhooks',
  entry: 'handleMessage',
  brief: [
    'Providers deliver webhooks at least once too: after a slow answer, a timeout on their side or a retry policy, the same event arrives again, sometimes while the first delivery is still being handled.',
    'Here the payment provider delivers event evt_1 ("payment succeeded for order 1042") to two handlers at once. The starter sends the "payment received" e-mail every time.',
    'Store each event id with the same claim-and-complete pattern: the key is the event id, so a repeat that finds it done just acknowledges, and one that finds it claimed backs off and comes back later. Pass that key to the e-mail provider too, for a handler that crashes between sending and complete. And keep the lease short, say 60 s: the queue redelivers every 30 s, at most 10 times, and each delivery that finds a crashed handler\'s claim still running can only come back later.',
    'On odd-numbered seeds Explore plays a fuller provider: it sends the payment\'s "created" event (evt_0) for the same order first, which your handler should simply acknowledge, and every delivery carries a deliveryAttempt (1, 2, …) that changes on each redelivery while the event id stays. On seeds 1, 5, 9, … the customer also pays in two instalments: a second "succeeded" event, evt_2, a payment of its own that gets its own e-mail. A key must tell events apart, and name the same event the same way on every delivery.',
    'On seeds 6, 14, 22, … the handlers come up at 23:59:30 UTC, so the event\'s redeliveries arrive after midnight: the same event on another day is still the same event.',
    'Explore also loses an e-mail on its way to the provider: the call times out and nothing was sent. An event marked done after that never gets its e-mail. It loses the answer to one that went as well: that call times out too, and a retry under another key sends the e-mail again.',
    'The lab models the webhook endpoint with its queue: returning \'ack\' is your endpoint answering 2xx, \'retry-later\' (or a throw) answering with an error, after which the provider sends the event again. Real providers retry over hours with growing gaps; the 30 s here keeps the demonstration short.',
  ],
  explanations: {
    starter: 'Acts on every delivery of the event.',
    solution: 'claim(opKey("webhook", { eventId })) before acting, complete after: the event id is the dedupe key.',
  },
  build(mod, variation) {
    const handler = handlerOf(mod, 'handleMessage');
    const codeErrors: CodeError[] = [];
    // On odd seeds each delivery also says which attempt it is, as a real provider's redelivery
    // differs from the first (a new delivery id, a new signature time): the event id stays.
    const varied = fullerProviderOn(variation?.seed);
    const toEvent = varied ? (body: unknown, delivery: Delivery) => ({ ...(body as object), deliveryAttempt: delivery.attempt }) : undefined;
    // On seeds 6, 14, 22, … the handlers come up 30 s before midnight UTC: redeliveries fall on the next day.
    const late = nearMidnightWebhooksOn(variation?.seed) ? NEAR_MIDNIGHT_MS : 0;
    return {
      spec: {
        processes: ['handler-1', 'handler-2'].map((id) => {
          const spec = workerProcess(id, handler, codeErrors, toEvent);
          return late ? startsLate(spec, late, `${id} comes up at 23:59:30 UTC on Sunday 31 May`) : spec;
        }),
        messages: webhooksFor(variation?.seed),
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        // A send gives up after 30 s, inside the handlers' 60 s lease (lib/consumer.ts: a lease longer than the work).
        providers: { timeoutMs: 30_000 },
        horizonMs: late + 3_600_000,
      },
      observed: {},
      codeErrors,
    };
  },
  demo: { seed: 2, faults: [{ kind: 'duplicate-delivery', message: 'evt_1' }], story: 'The provider delivers evt_1 to both handlers at once.' },
  // The crashes after the send are the gap a transaction cannot close: a handler that records the
  // event and sends in one transaction loses the record to the rollback, and the repeat sends again.
  faultMenu: [
    { kind: 'duplicate-delivery', message: 'evt_1' },
    crash('handler-1', 'before', 'queue.ack'),
    crash('handler-2', 'after', 'db', 1),
    crash('handler-1', 'after', 'email.send'),
    crash('handler-2', 'after', 'email.send'),
    // A send whose request never reached the provider: the timeout does not say the e-mail went
    // (a handler that records it as sent anyway was found passing without it).
    { kind: 'lose-request', call: 'email.send', nth: 1 },
    // …and one whose answer never came back: the e-mail went, and a retry under another key sends it again.
    { kind: 'lose-response', call: 'email.send', nth: 1 },
  ],
  maxFaults: 2,
  invariants: [
    onePaymentEmailPerPayment,
    everyPaymentConfirmed,
    messagesSettled,
    noEmailInsideTransaction,
    ownRecordNotProviderKey,
    checkHoldsUnlessKeyed,
  ],
  tables: ['operations'],
  actors: ['queue', 'handler-1', 'handler-2', 'postgres', 'email'],
  crashable: ['handler-1', 'handler-2'],
  lossy: 'email.send',
  prediction: { prompt: 'evt_1 is delivered to both handlers at once. How many "payment received" e-mails will order 1042 get?', ...receiptsFor(1042, '"payment received" e-mail', '"payment received" e-mails') },
  hints: {
    nudge: 'Run the demonstration and look at the two handlers\' lanes as evt_1 arrives at both: what does each read in the tables before it sends, and when?',
    targeted: [
      {
        id: 'at-most-one-email/duplicate-delivery',
        invariant: 'at-most-one-email',
        fault: { kind: 'duplicate-delivery' },
        text: 'Both handlers sent for evt_1. A check followed by a write leaves a gap both fit into: claim the event id in one INSERT … ON CONFLICT and send only when it returned your row. A key from the delivery time, or a set in memory, is different (or empty) for the second handler.',
      },
      {
        id: 'at-most-one-email',
        invariant: 'at-most-one-email',
        text: 'A second "payment received" e-mail went out. Dedupe on the event id — the same on every delivery — claimed in the operations table, and pass it to the e-mail provider too.',
      },
      {
        id: 'every-payment-confirmed',
        invariant: 'every-payment-confirmed',
        text: 'The e-mail never went out. Look for the event marked done before the e-mail was sent: a crash between the two loses it. Complete after the send.',
      },
      {
        id: 'messages-settled',
        invariant: 'messages-settled',
        text: 'A message was never acknowledged: the handler kept answering \'retry-later\' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over.',
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
      id: 'webhook-dedupe-event-id',
      prompt: 'The payment provider delivers event evt_1 to two of our webhook handlers at once. What should the handlers dedupe on?',
      choices: [
        { id: 'event-id', text: 'The event\'s id, claimed in the operations table before doing anything' },
        { id: 'body-hash', text: 'A hash of the whole request as received, the delivery timestamp header included' },
        { id: 'handler-name', text: 'The name of the handler process together with the order id in the payload' },
        { id: 'nothing', text: 'Nothing: a payment provider delivers each webhook event exactly once' },
      ],
      correct: 'event-id',
      explanation: 'Providers deliver webhooks at least once, just like queues. The event id names the logical event and is identical on every delivery; delivery metadata such as a timestamp header differs between deliveries, so a hash over it treats each one as new. The handler\'s name differs between the two handlers, so each would claim a key of its own and both would send. Claiming the event id with the same claim-and-complete pattern lets one handler act and the other back off.',
      see: {
        scenario: 'webhook-dedupe',
        variant: 'starter',
        seed: 2,
        faults: [{ kind: 'duplicate-delivery', message: 'evt_1' }],
        step: 5,
        expect: 'violated',
        invariant: 'at-most-one-email',
      },
    },
  ],
});
