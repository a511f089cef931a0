/** The lesson "What does a replay cost?": Safe to replay, or not. Its code is ./starter.ts and ./solution.ts. */
import { EVENT, NEXT_EVENT, NEXT_SHIPMENT_AFTER_MS, REPLAY_AFTER_MS, ShipEvent, counterCorrect, everythingApplied, nextShipmentOn, noDuplicateRow, setupSqlFor, shipEventsFor } from '../kit/replay-safety-world';
import { chargesFor } from '../kit/predictions';
import { exportedFunction } from '../../learner/compile';
import { fourthSeedOn, nearBoundaryOn, samePriceOn, startsLate, type CodeError } from '../kit/scenario';
import type { ProcessSpec } from '../../engine/scheduler';
import type { Env, Fault } from '../../engine/types';
import { atMostOneEmail, noDoubleCharge, oneShot } from '../kit/one-shot';
import { ownRecordNotProviderKey } from '../kit/own-record';
import { defineLesson } from '../kit/define';

/**
 * From the run's start (09:00 UTC) to 23:58:30: on seeds 3, 7, 11, … the event is handled then,
 * and its replay two minutes later falls on the next date.
 */
const LATE_EVENING_MS = (14 * 3600 + 58 * 60 + 30) * 1000;

/** On seeds 2, 6, 10, … the event comes back an hour later (from an archive), past any short lease on what recorded it. */
const LATE_REPLAY_MS = 3_600_000;

export default defineLesson({
  id: 'replay-safety',
  title: 'What does a replay cost?',
  summary: 'One shipped order does eight things, then the same event is handled again: the lookup and the PDF cost credits, the field and the upsert cost nothing, and the charge, the e-mail, the counter and the audit line happen twice unless protected.',
  concept: 'Safe to replay, or not',
  entry: 'handleShipped',
  brief: [
    'An operation is idempotent when doing it twice leaves the world as doing it once did. Some operations are so by nature; for others a replay costs money, a customer\'s patience, or a wrong number.',
    'Here one "order shipped" event does eight things: a lookup, an HTML-to-PDF transformation, setting the shipment\'s status, upserting the customer, charging the card, sending an e-mail, incrementing a counter and appending an audit line. Two minutes later the same event is handled again. Watch the ledger and the tables: what did the replay cost?',
    'Sort them: the lookup and the transformation cost credits again, setting a field and the upsert cost nothing; the charge needs the provider\'s idempotency key; the e-mail, the counter and the appended row need our own dedupe. Protect the ones that need it. The counter and the audit line are our own writes: record them and their key in one transaction, so a crash cannot leave one without the other. And when a claim is neither yours nor done, another run is on it or died on it: fail this attempt, so the event is handled again later, rather than skip the e-mail. A failed attempt is tried again 30 s later, so a 30 s lease (claim(env.db, key, 30)) lets that attempt take over from a run that died.',
    'Explore also loses the e-mail on its way to the provider: the call times out and nothing was sent. An e-mail marked done after that is never sent at all.',
    'On seeds 4, 8, 12, … Ada\'s next order, 1043, at the same price and to the same address, ships ten minutes later: its charge and its e-mail are operations of their own, so their keys must name the order.',
    'On seeds 3, 7, 11, … the event is first handled at 23:58:30 UTC, so its replay comes after midnight: a key must not carry the date. On seeds 2, 6, 10, … it comes back an hour later, as a replay from an archive would: what records that the event was handled must not run out. On seeds 5, 9, 13, … it comes a third time an hour after the first: whatever a handling learnt — even from the provider\'s answer that the e-mail had already gone — must be in your own record by then.',
  ],
  explanations: {
    starter: 'Does all eight every time. The safe half survives the replay; the charge, the e-mail, the counter and the audit line happen twice.',
    solution: 'The safe four stay as they are. The charge carries a key derived from the order; the e-mail is claimed and completed under its own key (and sent with it); the counter and the audit line are written in one transaction that first records the event\'s key, so a replay finds it and writes nothing.',
  },
  build(mod, variation) {
    const handle = exportedFunction<(event: ShipEvent, env: Env) => Promise<unknown>>(mod, 'handleShipped');
    const observed: Record<string, unknown> = { events: shipEventsFor(variation?.seed) };
    const codeErrors: CodeError[] = [];
    const late = nearBoundaryOn(variation?.seed) ? LATE_EVENING_MS : 0;
    const replayAfter = samePriceOn(variation?.seed) ? LATE_REPLAY_MS : REPLAY_AFTER_MS;
    const shifted = (spec: ProcessSpec): ProcessSpec =>
      late ? startsLate(spec, late, spec.id === 'first-run' ? 'on this seed the event is handled at 23:58:30 UTC: its replay comes after midnight' : 'on this seed the whole day runs 14 h 58 min 30 s later') : spec;
    return {
      spec: {
        processes: [
          oneShot('first-run', (env) => handle({ ...EVENT }, env), observed, codeErrors, { why: `handling ${EVENT.eventId}` }),
          oneShot('replay', (env) => handle({ ...EVENT }, env), observed, codeErrors, {
            startAfterMs: replayAfter,
            why: `${EVENT.eventId} arrives again, ${replayAfter === REPLAY_AFTER_MS ? 'two minutes' : 'an hour'} later (and again 30 s after any failure, up to 3 times)`,
            attempts: 3,
            retryDelayMs: 30_000,
          }),
          // On seeds 5, 9, 13, … the event comes a third time, an hour after the first: a handling
          // that learnt from the provider's answer that the e-mail had gone must have recorded it.
          ...(fourthSeedOn(variation?.seed)
            ? [
                oneShot('replay-2', (env) => handle({ ...EVENT }, env), observed, codeErrors, {
                  startAfterMs: LATE_REPLAY_MS,
                  why: `${EVENT.eventId} arrives a third time, an hour after the first (and again 30 s after any failure, up to 3 times)`,
                  attempts: 3,
                  retryDelayMs: 30_000,
                }),
              ]
            : []),
          ...(nextShipmentOn(variation?.seed)
            ? [
                oneShot('first-run-1043', (env) => handle({ ...NEXT_EVENT }, env), observed, codeErrors, {
                  startAfterMs: NEXT_SHIPMENT_AFTER_MS,
                  why: `Ada's next order, ${NEXT_EVENT.orderId}, at the same price, ships ten minutes later: ${NEXT_EVENT.eventId} (tried again 30 s after any failure, up to 3 times)`,
                  attempts: 3,
                  retryDelayMs: 30_000,
                }),
              ]
            : []),
        ].map(shifted),
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000, emailHonoursKeys: true, metered: { credits: 100, answerPeriodMs: 60_000 } },
        setupSql: setupSqlFor(variation?.seed),
        horizonMs: 3_600_000 + late + replayAfter + (fourthSeedOn(variation?.seed) ? LATE_REPLAY_MS : 0),
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [],
    story: 'No fault at all: the same "order shipped" event is simply handled twice, two minutes apart.',
  },
  faultMenu: [
    // The charge's request lost on the way, in the first run and in the replay: a timeout taken
    // for "charged" then never charges the card.
    { kind: 'lose-request', call: 'payments.charge', nth: 1 },
    { kind: 'lose-request', call: 'payments.charge', nth: 2 },
    { kind: 'lose-response', call: 'payments.charge', nth: 1 },
    { kind: 'lose-response', call: 'email.send', nth: 1 },
    { kind: 'lose-request', call: 'email.send', nth: 1 },
    { kind: 'crash', process: 'first-run', after: 'email.send' },
    { kind: 'crash', process: 'first-run', before: 'payments.charge' },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 3 },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 4 },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 5 },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 6 },
    // Later statements: after the COMMIT of a handler that counts in a transaction of its own,
    // before what it writes after it.
    { kind: 'crash', process: 'first-run', after: 'db', nth: 7 },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 8 },
    { kind: 'crash', process: 'first-run', after: 'db', nth: 9 },
  ] satisfies Fault[],
  maxFaults: 2,
  invariants: [
    noDoubleCharge([EVENT.orderId, NEXT_EVENT.orderId]),
    atMostOneEmail([EVENT.orderId, NEXT_EVENT.orderId], 'at-most-one-email', 'At most one "shipped" e-mail', 'shipped'),
    counterCorrect,
    noDuplicateRow,
    everythingApplied,
    ownRecordNotProviderKey,
  ],
  tables: ['shipments', 'customers', 'counters', 'audit_log', 'operations'],
  actors: ['first-run', 'replay', 'postgres', 'lookup', 'transform', 'payments', 'email'],
  crashable: ['first-run', 'replay'],
  lossy: 'email.send',
  prediction: {
    prompt: 'The same "order shipped" event is handled twice, two minutes apart. How many times will the card for order 1042 be charged?',
    ...chargesFor(1042),
  },
  hints: {
    nudge: 'Run the demonstration, then compare the ledger and the tables after the first handling of the event and after the second. Sort the eight operations: which changed nothing the second time, which only cost credits again, and which did real damage?',
    targeted: [
      {
        id: 'no-double-charge',
        invariant: 'no-double-charge',
        text: 'The card was charged twice. A charge happens at the payment provider: only the provider can recognise a repeat, and only if it gets the same idempotency key both times. A key drawn at random, or none, makes each handling a new charge; derive it from the event.',
      },
      {
        id: 'at-most-one-email',
        invariant: 'at-most-one-email',
        text: 'The "shipped" e-mail went out twice. Record the send under a key derived from the event in our own table: claim it first, and skip the send when the key is already done.',
      },
      {
        id: 'counter-correct',
        invariant: 'counter-correct',
        text: 'The shipped counter is off. An increment is not safe to repeat, and a record kept in memory, or a claim written apart from the increment, can end up without the other after a crash. Replay it and look at the counter and your key row at the crash: write both in one transaction.',
      },
      {
        id: 'no-duplicate-row',
        invariant: 'no-duplicate-row',
        text: 'The audit log holds two lines for one event. Appending is not safe to repeat: key the line by the event (a unique key and ON CONFLICT DO NOTHING, or a claim in the same transaction as the insert).',
      },
      {
        id: 'every-effect-applied/crash',
        invariant: 'every-effect-applied',
        fault: { kind: 'crash' },
        text: 'An operation never took effect: a run died part-way, and the replay skipped what the first run never finished. Replay it and find the key marked done (or the claim taken) before its effect happened. A claim that is neither yours nor done means another run is on it or died on it: fail this attempt so the event comes back, rather than skipping.',
      },
      {
        id: 'every-effect-applied',
        invariant: 'every-effect-applied',
        text: 'An operation never took effect. Look for work that was marked done before it happened, or a repeat that skipped work because someone else had claimed it. Mark done after the effect, and let an attempt that finds a claim held by another fail so the event is handled again.',
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
      id: 'replay-safety-which-needs-key',
      prompt: 'One "order shipped" event does eight things, and then the same event is handled a second time. Which of these operations is safe to repeat only if the provider gets the same idempotency key?',
      choices: [
        { id: 'pdf', text: 'Rendering the invoice as a PDF' },
        { id: 'status', text: 'Setting the shipment\'s status to \'shipped\'' },
        { id: 'charge', text: 'Charging the customer\'s card for the order' },
        { id: 'upsert', text: 'Upserting the customer by its id' },
      ],
      correct: 'charge',
      explanation: 'Rendering a PDF creates nothing, so a repeat only costs another credit. Setting a field to a value and upserting by a stable id leave the row exactly as the first run did. A charge creates money movement in someone else\'s system: the second one is a real second charge, unless the provider recognises the same key and returns the first. (The counter and the audit line need our own dedupe instead: they are our own tables, with no provider to hand a key to. So does the e-mail: many e-mail and SMS providers take no key at all, so we record the send ourselves, and pass the key too where the provider takes one.)',
      see: {
        scenario: 'replay-safety',
        variant: 'starter',
        seed: 1,
        faults: [],
        expect: 'violated',
        invariant: 'no-double-charge',
      },
    },
  ],
});
