/** The lesson "Yesterday's job, rerun by hand": Manual reruns. Its code is ./starter.ts and ./solution.ts. */
import { BillingOrder, HOUR_MS, JOB_IDS, JOB_ORDERS, OPERATOR_RERUN_MS, RERUN_AT_ONCE, jobOrdersFor, monthEndOn, nightlyStartOn, rerunAtOnceOn, rerunOrdersFor, rerunReversedOn, everyOrderBilled, receiptAfterCharge } from '../kit/key-worlds';
import { chargesFor } from '../kit/predictions';
import { exportedFunction } from '../../learner/compile';
import { type CodeError } from '../kit/scenario';
import type { Env } from '../../engine/types';
import { atMostOneEmail, noDoubleCharge, oneShot } from '../kit/one-shot';
import { defineLesson } from '../kit/define';

export default defineLesson({
  id: 'human-rerun',
  title: "Yesterday's job, rerun by hand",
  summary: 'An operator reruns yesterday\'s billing job. Without operation keys every charge and receipt repeats; with them, claimed in our own table, the rerun finds everything done.',
  concept: 'Manual reruns',
  entry: 'runBillingJob',
  brief: [
    'Queues are not the only source of repeats. Someone looks at yesterday\'s dashboard, thinks the billing job failed, and runs it again by hand.',
    'Here the billing job runs at 09:00, charging three orders and sending each a receipt. At 11:00 the next day, 26 hours later, an operator reruns it with the same orders. The starter just does the work again: every charge and every receipt repeats.',
    'Give each operation a key derived from what it is — this order\'s charge, this order\'s receipt — claim it in the operations table before doing it, pass the same key to the provider, and mark it done after. A provider\'s answer can be lost on the way back (a timeout): retry the call a few times with the same key, rather than letting the error end the job with the key still claimed. The rerun then finds everything done. By then the providers may have forgotten their keys (they promise to keep them for at least 24 hours, not for ever); your table has not.',
    'On seeds 5, 13, 21, … the operator also starts the job by hand a tenth of a second after the nightly run began, while it is still charging the first order: a claim someone else holds is neither done nor yours, so it is no reason to send a receipt.',
    'Explore also loses a receipt on its way to the e-mail provider: the call times out and nothing was sent, so a receipt marked done after a timeout is never sent at all.',
    'On seeds 3, 11, 19, … the nightly run falls on the last evening of the month, at 22:00 UTC on Saturday 31 January, and the rerun on Monday 2 February at 00:00: a key must name the order\'s charge, not the month it was billed in.',
    'On seeds 4, 8, 12, … the rerun lists the same orders the other way round, as a query without ORDER BY may: a key must name the order, not its line in the job.',
    'Your table knows only what was marked done, though. If every retry times out, or the job dies between a charge and its complete, the key stays claimed, and a rerun after the provider forgot it charges again: there only asking the provider what it already did (reconciliation) can help. The explorer keeps to faults a few retries get past.',
  ],
  explanations: {
    starter: 'Charges and e-mails every order on every run. Correct only if nobody ever runs the job twice.',
    solution: 'Every operation is claimed under its own key and completed after it happened; a rerun (or a retry, or a takeover after a crash) finds it done and moves on. The same keys go to the providers, so a retry within the day is answered from their memory too. One gap no key closes: a crash after a charge or a receipt went through and before its complete, taken over the next day when the provider has forgotten the key.',
  },
  build(mod, variation) {
    const run = exportedFunction<(orders: BillingOrder[], env: Env) => Promise<unknown>>(mod, 'runBillingJob');
    const observed: Record<string, unknown> = {};
    const codeErrors: CodeError[] = [];
    const orders = () => jobOrdersFor(variation?.seed);
    const start = nightlyStartOn(variation?.seed);
    return {
      spec: {
        processes: [
          oneShot('nightly-job', (env) => run(orders(), env), observed, codeErrors, {
            why: `billing ${JOB_ORDERS.length} orders${monthEndOn(variation?.seed) ? ', on the last evening of January' : ''}`,
            ...(start ? { startAfterMs: start } : {}),
          }),
          oneShot('operator', (env) => run(rerunOrdersFor(variation?.seed), env), observed, codeErrors, {
            startAfterMs: start + OPERATOR_RERUN_MS,
            why: `the dashboard looked wrong, so I'm rerunning yesterday's billing job by hand${rerunReversedOn(variation?.seed) ? ' (its query lists the orders the other way round today)' : ''}`,
            ...(rerunAtOnceOn(variation?.seed) ? { earlier: RERUN_AT_ONCE } : {}),
          }),
        ],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000, emailHonoursKeys: true },
        horizonMs: start + OPERATOR_RERUN_MS + HOUR_MS,
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [],
    story: 'No fault at all: the job runs at 09:00, and an operator reruns it by hand at 11:00 the next day, 26 hours later.',
  },
  // As in ambiguous-timeout-charge, a crash between a charge (or a receipt) and its complete, or
  // retries that all time out, replayed 26 h later, is beyond any key (the provider forgot it; the
  // brief says so): the invariants show such a repeat as beyond keys, and at most two answers are lost.
  // The crash before the first e-mail leaves its key claimed, not done: the
  // operator's rerun takes it over and sends that receipt, once.
  faultMenu: [
    { kind: 'lose-response', call: 'payments.charge', nth: 1 },
    { kind: 'lose-response', call: 'payments.charge', nth: 2 },
    // A lost request: the timeout alone does not say the charge happened (a job that swallows the
    // error and marks the charge done was found passing without it).
    { kind: 'lose-request', call: 'payments.charge', nth: 1 },
    { kind: 'lose-response', call: 'email.send', nth: 2 },
    // …and a receipt whose request never reached it: a job that swallows the timeout and marks the
    // receipt sent leaves that customer without one.
    { kind: 'lose-request', call: 'email.send', nth: 1 },
    { kind: 'crash', process: 'nightly-job', after: 'db', nth: 3 },
    { kind: 'crash', process: 'nightly-job', before: 'email.send', nth: 1 },
    { kind: 'crash', process: 'nightly-job', before: 'payments.charge', nth: 1 },
    // In the gap itself: the first charge went through and the job died before its complete. No
    // key saves the rerun 26 h later (the repeat is shown as beyond keys and not counted), but a
    // rerun that charges under another key than the first run's is caught here.
    { kind: 'crash', process: 'nightly-job', after: 'payments.charge', nth: 1 },
  ],
  maxFaults: 3,
  invariants: [noDoubleCharge(JOB_IDS), atMostOneEmail(JOB_IDS, 'at-most-one-receipt', 'At most one receipt per order'), everyOrderBilled, receiptAfterCharge],
  tables: ['operations'],
  actors: ['nightly-job', 'operator', 'postgres', 'payments', 'email'],
  crashable: ['nightly-job', 'operator'],
  lossy: 'email.send',
  prediction: { prompt: 'An operator reruns the nightly billing job by hand the next day. How many times will order 3001 be charged?', ...chargesFor(3001) },
  hints: {
    nudge: 'Run the demonstration and put the job\'s two runs side by side: 09:00 on day one and 11:00 on day two. In the ledger, which charges and receipts repeat? In the tables, what could the second run have read?',
    targeted: [
      {
        id: 'no-double-charge',
        invariant: 'no-double-charge',
        text: 'An order was charged twice. The providers may forget their keys after 24 hours, so the rerun 26 hours later needs your own record: claim each order\'s charge under its own key (derived from the order, not from the run or the job), complete it, and skip it when done. Retry a lost answer with the same key rather than giving up with the key still claimed.',
      },
      {
        id: 'at-most-one-receipt',
        invariant: 'at-most-one-receipt',
        text: 'A receipt went out twice. Each receipt is an operation of its own: claim it under a key derived from the order, separate from the charge\'s, and mark it done after the send.',
      },
      {
        id: 'every-order-billed',
        invariant: 'every-order-billed',
        text: 'An order of the job was never charged or never receipted. Look for a key marked done before its effect, or an error that was swallowed and completed anyway: complete only after the provider answered.',
      },
      {
        id: 'receipt-after-charge',
        invariant: 'receipt-after-charge',
        text: 'A receipt went out before its order\'s charge was confirmed: the job sent it beside the charge, or after a charge that failed. A receipt says the money was taken, so send it only once the charge call has answered with a charge, one order\'s steps in sequence.',
      },
    ],
  },
  questions: [
    {
      id: 'human-rerun-operations-table',
      prompt: 'An operator reruns yesterday\'s billing job by hand, 26 hours after it ran. The job charges three orders and e-mails each a receipt. What keeps the rerun from doing it all again?',
      choices: [
        {
          id: 'provider-keys',
          text: 'Idempotency keys sent to the payment and e-mail providers, with nothing recorded on our side',
        },
        {
          id: 'claim-each',
          text: 'Each charge and each receipt claimed under its own key in our operations table, found done',
        },
        { id: 'confirm', text: 'A dialog that asks the operator to confirm, naming the jobs that already ran yesterday' },
        { id: 'one-transaction', text: 'Running the whole job inside one database transaction, so it all happens or none of it does' },
      ],
      correct: 'claim-each',
      explanation: 'Humans rerun jobs; a confirmation dialog only makes them click once more. Provider keys help only within their retention window: providers promise to keep them at least 24 hours, not longer, and 26 have passed, so on their own the keys may let every charge and every receipt repeat. A database transaction cannot include a charge or an e-mail in another system. Operation keys — this order\'s charge, this order\'s receipt — claimed and completed in our own table make the rerun a walk past finished work.',
      see: {
        scenario: 'human-rerun',
        variant: 'starter',
        seed: 1,
        faults: [],
        step: 18,
        expect: 'violated',
        invariant: 'no-double-charge',
      },
    },
  ],
});
