/**
 * Keys over time: a charge whose timeout leaves us not knowing (and whose replay comes back after
 * the provider's 24-hour memory), a reminder that may go once per business date, and yesterday's
 * job rerun by hand. In each, the operation — not the attempt — decides the key, and our own
 * operations table remembers for as long as we keep it, however long the provider remembers.
 */
import { exportedFunction } from '../learner/compile';
import type { ProcessSpec } from '../engine/scheduler';
import { handlerOf, messagesSettled, workerProcess, type CodeError, type Invariant, type Scenario } from '../lessons/kit/scenario';
import { SIM_EPOCH_MS } from '../engine/sim-time';
import { formatSimMoment } from '../engine/sim-time';
import type { CheckoutOrder, Env, Fault } from '../engine/types';
import { businessDateOf, simDate } from '../lessons/kit/business-date';
import { atMostOneEmail, humanDuration, noDoubleCharge, oneShot, type Returned } from '../lessons/kit/one-shot';

const HOUR_MS = 3_600_000;

// ── ambiguous-timeout-charge ─────────────────────────────────────────────

const TIMEOUT_ORDER: CheckoutOrder = { id: 2077, customerId: 'cus_grace', totalCents: 12_900 };
/** The rerun comes the next day, after the provider has forgotten the key (it keeps them 24 h). */
const NEXT_DAY_RERUN_MS = 25 * HOUR_MS;

const timeoutOrderCharged: Invariant = {
  id: 'order-charged',
  title: 'The order is charged',
  check({ outcome }) {
    return outcome.ledger.charges.some((c) => c.orderId === TIMEOUT_ORDER.id)
      ? { held: true, detail: `order ${TIMEOUT_ORDER.id} was charged` }
      : { held: false, detail: `order ${TIMEOUT_ORDER.id} was never charged` };
  },
};

const everyoneSawTheCharge: Invariant = {
  id: 'same-charge-everywhere',
  title: 'Checkout and the rerun both report the one charge',
  check({ outcome, observed }) {
    const charges = outcome.ledger.charges.filter((c) => c.orderId === TIMEOUT_ORDER.id).map((c) => c.chargeId);
    for (const who of ['checkout', 'rerun']) {
      const r = observed[who] as Returned | undefined;
      if (!r || 'error' in r) continue;
      const chargeId = (r.value as { chargeId?: unknown } | undefined)?.chargeId;
      if (charges.length === 1 && chargeId !== charges[0]) {
        return { held: false, detail: `${who} reported ${String(chargeId)}, but the provider holds ${charges[0]}` };
      }
      // Several charges: there is no one charge to report, whatever this caller saw (QA: this used
      // to pass without checking anything while the ledger showed three charges).
      if (charges.length > 1) {
        return { held: false, detail: `${who} reported ${String(chargeId)}, but the provider holds ${charges.length} charges (${charges.join(', ')}): there is no one charge to agree on` };
      }
    }
    return { held: true, detail: 'every caller that finished reported the charge the provider holds' };
  },
};

export const ambiguousTimeoutCharge: Scenario = {
  id: 'ambiguous-timeout-charge',
  title: 'The charge that timed out',
  entry: 'chargeOrder',
  brief: [
    'A timeout after the request left tells you nothing: the provider may have charged the card, or never seen the request. The only safe answer is to retry with a key that makes the retry harmless.',
    'Here checkout charges order 2077 and the response is lost. The starter retries with no key, so the provider charges again. The next day a rerun of yesterday\'s checkouts calls chargeOrder once more.',
    'A key derived from the order makes the provider return the original charge to a retry (and refuse the key if a request under it asks for a different amount). But the provider may forget a key once it is 24 hours old (Stripe keeps keys for at least 24 hours): only your own operations table — claim, complete, and return the stored result — still knows on day two. That table answers from what it stored and does not compare amounts: a key reused for other work gets the old charge back, so derive it from the operation.',
    'It knows only what was marked done. A run that ends without complete leaves the operation running: a crash after the charge went through, or four timeouts in a row after which checkout gives up not knowing. A takeover on day two, after the provider forgot the key, then charges again. No key closes that gap: only asking the provider what it already charged for the order (reconciliation) does. So the explorer never crashes checkout there and never loses more than two answers in a row, but you can, by hand.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Retries the timed-out charge with no idempotency key: the provider cannot tell the retry from a new purchase. The next-day rerun charges a third time.',
      code: `import type { CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge({
        orderId: order.id,
        amountCents: order.totalCents,
        customer: order.customerId,
      });                                   // no idempotency key
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);  // did it go through? try again
    }
  }
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        'The key comes from the order. Retries within the day are answered by the provider from the key (replayed: true); the rerun the next day is answered by our own operations table, which still holds the charge after the provider forgot the key.',
      code: `import { opKey, claim, complete } from 'effectively-once';
import type { ChargeResult, CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  // Our own record first: it lasts as long as we keep it, not 24 hours.
  const c = await claim(env.db, key, 300);
  if (!c.owned) {
    // Charged before: return that charge.
    if (c.done) return c.result as ChargeResult;
    throw new Error(\`order \${order.id} is being charged by someone else\`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const charge = await env.payments.charge(
        {
          orderId: order.id,
          amountCents: order.totalCents,
          customer: order.customerId,
        },
        { idempotencyKey: key },       // the same key on every retry
      );
      await complete(env.db, key, charge);
      return charge;
    } catch (err) {
      // Out of attempts, not knowing: the operation stays running. A
      // run within the provider's 24 h is safe (same key); after that,
      // only asking the provider (reconciliation) can tell.
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
`,
    },
  },
  build(mod) {
    const chargeOrder = exportedFunction<(order: CheckoutOrder, env: Env) => Promise<unknown>>(mod, 'chargeOrder');
    const observed: Record<string, unknown> = {};
    const codeErrors: CodeError[] = [];
    return {
      spec: {
        processes: [
          oneShot('checkout', (env) => chargeOrder({ ...TIMEOUT_ORDER }, env), observed, codeErrors),
          oneShot('rerun', (env) => chargeOrder({ ...TIMEOUT_ORDER }, env), observed, codeErrors, {
            startAfterMs: NEXT_DAY_RERUN_MS,
            why: `the next day (${humanDuration(NEXT_DAY_RERUN_MS)} later) someone reruns yesterday's checkouts, order ${TIMEOUT_ORDER.id} included; the provider has forgotten its keys by now`,
          }),
        ],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000 },
        horizonMs: NEXT_DAY_RERUN_MS + HOUR_MS,
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [{ kind: 'lose-response', call: 'payments.charge', nth: 1 }],
    story: 'The first charge goes through, but its response is lost: checkout times out after 5 s and retries. The next day a rerun charges the order again.',
  },
  // A crash after a charge went through and before complete (a crash after a lost response
  // included), or four lost responses that end checkout with the key still running, replayed after
  // the provider's 24 hours, needs a reconciliation with the provider that no key can give (the
  // brief says so): crashes on the menu land before the first charge, and at most two responses
  // are lost, on purpose.
  faultMenu: [
    { kind: 'lose-response', call: 'payments.charge', nth: 1 },
    { kind: 'lose-response', call: 'payments.charge', nth: 2 },
    { kind: 'lose-request', call: 'payments.charge', nth: 1 },
    { kind: 'slow-response', call: 'payments.charge', nth: 2, ms: 8_000 },
    { kind: 'crash', process: 'checkout', after: 'db', nth: 1 },
    { kind: 'crash', process: 'checkout', before: 'payments.charge', nth: 1 },
  ],
  maxFaults: 3,
  invariants: [noDoubleCharge([TIMEOUT_ORDER.id]), timeoutOrderCharged, everyoneSawTheCharge],
  tables: ['operations'],
  actors: ['checkout', 'rerun', 'postgres', 'payments'],
};

// ── business-date-reminder ──────────────────────────────────────────────

const REMINDER = { orderId: 1042, customer: 'ada@example.com' };
/** Midnight after the first day (the run starts 2026-01-05 09:00 UTC). */
const MIDNIGHT_MS = 15 * HOUR_MS;
/** How long a received reminder stays invisible before the queue hands it out again. */
const REMINDER_VISIBILITY_MS = 90_000;
/**
 * When the scheduler fires, and for which business date. The rerun after the late deploy comes a
 * minute before midnight: a redelivery of it (a worker dying before its ack) runs after midnight,
 * on the next calendar day, and is still a reminder for the first business date.
 */
const REMINDER_PLAN: { atMs: number; why: string }[] = [
  { atMs: 0, why: "09:00: today's reminders are due" },
  { atMs: MIDNIGHT_MS - 60_000, why: "23:59: after a late deploy the scheduler fires today's reminders again" },
  { atMs: 24 * HOUR_MS, why: "the next day, 09:00: that day's reminders are due" },
];
const DUE_DATES = [...new Set(REMINDER_PLAN.map((p) => simDate(p.atMs)))];

function schedulerProcess(): ProcessSpec {
  return {
    id: 'scheduler',
    producer: true,
    async main(env) {
      for (const p of REMINDER_PLAN) {
        const wait = p.atMs - (env.clock.now() - SIM_EPOCH_MS);
        if (wait > 0) await env.sleep(wait);
        env.log(p.why);
        await env.queue.publish('reminder-due', { ...REMINDER, businessDate: simDate(p.atMs) });
      }
    },
  };
}

type SentReminder = { emailId: string; by: string; atMs: number; step: number };

function remindersByDate(ctx: Parameters<Invariant['check']>[0]) {
  const byDate = new Map<string, SentReminder[]>();
  for (const e of ctx.outcome.ledger.emails) {
    if (e.orderId !== REMINDER.orderId || e.template !== 'reminder') continue;
    const d = businessDateOf(ctx.outcome.trace, e);
    byDate.set(d, [...(byDate.get(d) ?? []), e]);
  }
  return byDate;
}

/** "em_2 by worker-2 at 15 h 0 min 30 s (Jan 6, 00:00:30), already 2026-01-06": when it went out on another day than the one it was for. */
function sentText(e: SentReminder, date: string): string {
  const on = simDate(e.atMs);
  return `${e.emailId} by ${e.by} at ${formatSimMoment(e.atMs)}${on === date ? '' : `, already ${on}`}`;
}

const oneReminderPerDay: Invariant = {
  id: 'one-reminder-per-date',
  title: 'At most one reminder per order per business date',
  check(ctx) {
    for (const [date, sent] of remindersByDate(ctx)) {
      if (sent.length > 1) {
        const late = sent.some((e) => simDate(e.atMs) !== date);
        return {
          held: false,
          detail: `order ${REMINDER.orderId} got ${sent.length} reminders ${late ? 'for business date' : 'on'} ${date}: ${sent.map((e) => sentText(e, date)).join(', ')}`,
          step: sent[1]!.step,
        };
      }
    }
    return { held: true, detail: 'no business date got two reminders' };
  },
};

const reminderEachDueDate: Invariant = {
  id: 'reminder-each-due-date',
  title: 'One reminder goes out on each business date it is due',
  check(ctx) {
    const got = remindersByDate(ctx);
    const missing = DUE_DATES.filter((d) => !got.has(d));
    if (!missing.length) return { held: true, detail: `a reminder went out on ${DUE_DATES.join(' and ')}` };
    // A reminder that went out that day for an earlier date: the day's own was taken for done.
    const stand = missing.flatMap((d) =>
      [...got].flatMap(([forDate, sent]) => sent.filter((e) => forDate !== d && simDate(e.atMs) === d).map((e) => `${e.emailId}, sent on ${d}, was ${forDate}'s`)),
    );
    return {
      held: false,
      detail: `no reminder went out for ${missing.join(', ')}, although one was due${stand.length ? ` (${stand.join('; ')})` : ''}`,
    };
  },
};

const reminderHandler = (keyIdentity: string) => `import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

// businessDate: the day the reminder is for, e.g. '2026-01-05'.
type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  ${keyIdentity}
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: key },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
`;

const remindCrash = (p: string, when: 'before' | 'after', kind: 'queue.ack' | 'email.send' | 'db'): Fault =>
  when === 'before' ? { kind: 'crash', process: p, before: kind } : { kind: 'crash', process: p, after: kind };

export const businessDateReminder: Scenario = {
  id: 'business-date-reminder',
  title: 'Once a day, not once per attempt',
  entry: 'sendReminder',
  brief: [
    'Some operations may rightly happen again: a payment reminder for order 1042 can go out once every business day. What makes two attempts "the same operation" is a business decision, and the key must say it.',
    'Here the scheduler fires at 09:00, fires again at 23:59 after a late deploy, and fires the next morning. The starter builds its key from the moment of the attempt, so the 23:59 rerun looks like new work and the customer is reminded twice in one day.',
    'Put the business date the reminder is for into the key — never the attempt time. The same-day rerun then finds the key done and sends nothing; the next day is a different key and sends exactly one. (A key of the order alone goes wrong the other way: it silences tomorrow.)',
    'The date of the attempt is not the business date either. If a worker dies before acknowledging the 23:59 rerun, the queue delivers it again after midnight: keyed on the day it runs, it sends a second reminder for the 5th and takes the 6th\'s key, so the 6th gets none.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'The key includes the time of the attempt, so every attempt — a redelivery, a rerun the same day — gets a new key, and another reminder.',
      code: reminderHandler(`// The key names this attempt: the moment this worker got to it.
  const key = opKey('reminder', {
    orderId: msg.orderId,
    attemptAt: env.clock.now(),
  });`),
    },
    solution: {
      label: 'Solution',
      explanation: 'opKey("reminder", { orderId, businessDate }): one operation per order per business date. A same-day rerun finds it done; the next business date is a new operation.',
      code: reminderHandler(`// The key names the operation: this order's reminder for this business date.
  const key = opKey('reminder', {
    orderId: msg.orderId,
    businessDate: msg.businessDate,
  });`),
    },
  },
  build(mod) {
    const handler = handlerOf(mod, 'sendReminder');
    const codeErrors: CodeError[] = [];
    const unwrap = (body: unknown) => (body as { body: unknown }).body;
    return {
      spec: {
        processes: [schedulerProcess(), workerProcess('worker-1', handler, codeErrors, unwrap), workerProcess('worker-2', handler, codeErrors, unwrap)],
        messages: [],
        visibilityTimeoutMs: REMINDER_VISIBILITY_MS,
        maxReceives: 10,
        providers: { timeoutMs: 30_000, emailHonoursKeys: true },
        horizonMs: 26 * HOUR_MS,
      },
      observed: {},
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
    { kind: 'duplicate-delivery', message: 'p1' },
    { kind: 'duplicate-delivery', message: 'p3' },
    { kind: 'lose-response', call: 'email.send', nth: 1 },
  ],
  maxFaults: 3,
  invariants: [oneReminderPerDay, reminderEachDueDate, messagesSettled],
  tables: ['operations'],
  actors: ['scheduler', 'queue', 'worker-1', 'worker-2', 'postgres', 'email'],
};

// ── human-rerun ─────────────────────────────────────────────────────────

interface BillingOrder extends CheckoutOrder {
  email: string;
}

const JOB_ORDERS: BillingOrder[] = [
  { id: 3001, customerId: 'cus_ada', totalCents: 2_500, email: 'ada@example.com' },
  { id: 3002, customerId: 'cus_grace', totalCents: 4_200, email: 'grace@example.com' },
  { id: 3003, customerId: 'cus_alan', totalCents: 990, email: 'alan@example.com' },
];
const JOB_IDS = JOB_ORDERS.map((o) => o.id);
/** The operator reruns the job the next day at 11:00 — 26 h later, past the provider's 24 h. */
const OPERATOR_RERUN_MS = 26 * HOUR_MS;

const everyOrderBilled: Invariant = {
  id: 'every-order-billed',
  title: 'Every order of the job is charged and receipted',
  check({ outcome }) {
    const missing = JOB_IDS.flatMap((id) => [
      ...(outcome.ledger.charges.some((c) => c.orderId === id) ? [] : [`order ${id} was never charged`]),
      ...(outcome.ledger.emails.some((e) => e.orderId === id) ? [] : [`order ${id} got no receipt`]),
    ]);
    return missing.length ? { held: false, detail: missing.join('; ') } : { held: true, detail: `all ${JOB_IDS.length} orders charged and receipted` };
  },
};

export const humanRerun: Scenario = {
  id: 'human-rerun',
  title: "Yesterday's job, rerun by hand",
  entry: 'runBillingJob',
  brief: [
    'Queues are not the only source of repeats. Someone looks at yesterday\'s dashboard, thinks the billing job failed, and runs it again by hand.',
    'Here the billing job runs at 09:00, charging three orders and sending each a receipt. At 11:00 the next day, 26 hours later, an operator reruns it with the same orders. The starter just does the work again: every charge and every receipt repeats.',
    'Give each operation a key derived from what it is — this order\'s charge, this order\'s receipt — claim it in the operations table before doing it, pass the same key to the provider, and mark it done after. A provider\'s answer can be lost on the way back (a timeout): retry the call a few times with the same key, rather than letting the error end the job with the key still claimed. The rerun then finds everything done. By then the providers may have forgotten their keys (they promise to keep them for at least 24 hours, not for ever); your table has not.',
    'Your table knows only what was marked done, though. If every retry times out, or the job dies between a charge and its complete, the key stays claimed, and a rerun after the provider forgot it charges again: there only asking the provider what it already did (reconciliation) can help. The explorer keeps to faults a few retries get past.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'Charges and e-mails every order on every run. Correct only if nobody ever runs the job twice.',
      code: `import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    await env.payments.charge({
      orderId: order.id,
      amountCents: order.totalCents,
      customer: order.customerId,
    });
    await env.email.send({ to: order.email, orderId: order.id });
  }
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        'Every operation is claimed under its own key and completed after it happened; a rerun (or a retry, or a takeover after a crash) finds it done and moves on. The same keys go to the providers, so a retry within the day is answered from their memory too. One gap no key closes: a crash after a charge or a receipt went through and before its complete, taken over the next day when the provider has forgotten the key.',
      code: `import { opKey, claim, complete } from 'effectively-once';
import type { CheckoutOrder, Env } from 'effectively-once';

type BillingOrder = CheckoutOrder & { email: string };

/** Do \`work\` once per key; true when it is done (now or before). */
async function once(env: Env, key: string, work: () => Promise<unknown>) {
  const c = await claim(env.db, key, 300);
  // Not ours: done before (true), or someone is on it right now (false).
  if (!c.owned) return c.done;
  await complete(env.db, key, await work());
  return true;
}

async function withRetries<T>(env: Env, call: () => Promise<T>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt === 3) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}

export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    const chargeKey = opKey('charge', { orderId: order.id });
    const charged = await once(env, chargeKey, () =>
      withRetries(env, () =>
        env.payments.charge(
          {
            orderId: order.id,
            amountCents: order.totalCents,
            customer: order.customerId,
          },
          { idempotencyKey: chargeKey },
        ),
      ),
    );
    if (!charged) continue;     // no receipt before the charge is done
    const receiptKey = opKey('receipt-email', { orderId: order.id });
    await once(env, receiptKey, () =>
      withRetries(env, () =>
        env.email.send(
          { to: order.email, orderId: order.id },
          { idempotencyKey: receiptKey },
        ),
      ),
    );
  }
}
`,
    },
  },
  build(mod) {
    const run = exportedFunction<(orders: BillingOrder[], env: Env) => Promise<unknown>>(mod, 'runBillingJob');
    const observed: Record<string, unknown> = {};
    const codeErrors: CodeError[] = [];
    const orders = () => JOB_ORDERS.map((o) => ({ ...o }));
    return {
      spec: {
        processes: [
          oneShot('nightly-job', (env) => run(orders(), env), observed, codeErrors, { why: `billing ${JOB_ORDERS.length} orders` }),
          oneShot('operator', (env) => run(orders(), env), observed, codeErrors, {
            startAfterMs: OPERATOR_RERUN_MS,
            why: "the dashboard looked wrong, so I'm rerunning yesterday's billing job by hand",
          }),
        ],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000, emailHonoursKeys: true },
        horizonMs: OPERATOR_RERUN_MS + HOUR_MS,
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
  // brief says so): the job's crashes on the menu land elsewhere, and at most two answers are lost.
  // The crash before the first e-mail leaves its key claimed, not done: the
  // operator's rerun takes it over and sends that receipt, once.
  faultMenu: [
    { kind: 'lose-response', call: 'payments.charge', nth: 1 },
    { kind: 'lose-response', call: 'payments.charge', nth: 2 },
    // A lost request: the timeout alone does not say the charge happened (a job that swallows the
    // error and marks the charge done was found passing without it).
    { kind: 'lose-request', call: 'payments.charge', nth: 1 },
    { kind: 'lose-response', call: 'email.send', nth: 2 },
    { kind: 'crash', process: 'nightly-job', after: 'db', nth: 3 },
    { kind: 'crash', process: 'nightly-job', before: 'email.send', nth: 1 },
    { kind: 'crash', process: 'nightly-job', before: 'payments.charge', nth: 1 },
  ],
  maxFaults: 3,
  invariants: [noDoubleCharge(JOB_IDS), atMostOneEmail(JOB_IDS, 'at-most-one-receipt', 'At most one receipt per order'), everyOrderBilled],
  tables: ['operations'],
  actors: ['nightly-job', 'operator', 'postgres', 'payments', 'email'],
};
