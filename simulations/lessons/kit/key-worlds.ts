/**
 * Keys over time: a charge whose timeout leaves us not knowing (and whose replay comes back after
 * the provider's 24-hour memory), a reminder that may go once per business date, and yesterday's
 * job rerun by hand. In each, the operation — not the attempt — decides the key, and our own
 * operations table remembers for as long as we keep it, however long the provider remembers.
 */
import type { ProcessSpec } from '../../engine/scheduler';
import { nearBoundaryOn, samePriceOn, type Invariant } from './scenario';
import { SIM_EPOCH_MS } from '../../engine/sim-time';
import { formatSimMoment } from '../../engine/sim-time';
import type { CheckoutOrder, Fault } from '../../engine/types';
import { businessDateOf, simDate } from './business-date';
import { GAP_NOTE, answeredCall, repeats, type Returned } from './one-shot';

export const HOUR_MS = 3_600_000;

// ── ambiguous-timeout-charge ─────────────────────────────────────────────

export const TIMEOUT_ORDER: CheckoutOrder = { id: 2077, customerId: 'cus_grace', totalCents: 12_900 };
/** The rerun comes the next day, after the provider has forgotten the key (it keeps them 24 h). */
export const NEXT_DAY_RERUN_MS = 25 * HOUR_MS;
/**
 * Grace's next order, checked out an hour after the first: a key naming the customer rather than
 * the order answers it with the first order's charge (or a refusal) instead of charging it.
 */
export const NEXT_ORDER: CheckoutOrder = { id: 2078, customerId: 'cus_grace', totalCents: 4_500 };
export const NEXT_ORDER_AFTER_MS = HOUR_MS;

/**
 * Grace's next order on seeds 2, 6, 10, …: the same amount as order 2077 (she buys the same thing
 * again). A key naming the customer and the amount is then answered with the first charge, which
 * different amounts would hide.
 */
export function nextOrderFor(seed: number | undefined): CheckoutOrder {
  return samePriceOn(seed) ? { ...NEXT_ORDER, totalCents: TIMEOUT_ORDER.totalCents } : NEXT_ORDER;
}

export const timeoutOrderCharged: Invariant = {
  id: 'order-charged',
  title: 'Each order is charged',
  check({ outcome }) {
    for (const order of [TIMEOUT_ORDER, NEXT_ORDER]) {
      if (!outcome.ledger.charges.some((c) => c.orderId === order.id)) return { held: false, detail: `order ${order.id} was never charged` };
    }
    return { held: true, detail: `orders ${TIMEOUT_ORDER.id} and ${NEXT_ORDER.id} were charged` };
  },
};

export const everyoneSawTheCharge: Invariant = {
  id: 'same-charge-everywhere',
  title: 'Every caller reports its own order\'s one charge',
  check({ outcome, observed }) {
    const next = observed['next-order'] as Returned | undefined;
    const nextId = next && !('error' in next) ? (next.value as { chargeId?: unknown } | undefined)?.chargeId : undefined;
    const nextCharges = outcome.ledger.charges.filter((c) => c.orderId === NEXT_ORDER.id).map((c) => c.chargeId);
    if (nextId !== undefined && !nextCharges.includes(String(nextId))) {
      const whose = outcome.ledger.charges.find((c) => c.chargeId === nextId);
      return { held: false, detail: `order ${NEXT_ORDER.id}'s checkout reported ${String(nextId)}, ${whose ? `order ${whose.orderId}'s charge` : 'a charge the provider does not hold'}` };
    }
    const charged = outcome.ledger.charges.filter((c) => c.orderId === TIMEOUT_ORDER.id);
    const charges = charged.map((c) => c.chargeId);
    // Charges repeated only across the gap no key closes (no-double-charge says which): there is no
    // one charge to report either, and that is not the code's to answer for.
    const found = repeats(outcome.trace, charged);
    const beyondKeys = !found.bug && found.excused > 0;
    for (const who of ['checkout', 'checkout-2', 'rerun']) {
      const r = observed[who] as Returned | undefined;
      if (!r || 'error' in r) continue;
      const chargeId = (r.value as { chargeId?: unknown } | undefined)?.chargeId;
      if (charges.length === 1 && chargeId !== charges[0]) {
        return { held: false, detail: `${who} reported ${String(chargeId)}, but the provider holds ${charges[0]}` };
      }
      // Several charges: there is no one charge to report, whatever this caller saw.
      if (charges.length > 1) {
        const detail = `${who} reported ${String(chargeId)}, but the provider holds ${charges.length} charges (${charges.join(', ')}): there is no one charge to agree on`;
        return beyondKeys ? { held: false, detail: `${detail}; ${GAP_NOTE}`, beyondKeys: true } : { held: false, detail };
      }
    }
    return { held: true, detail: 'every caller that finished reported the charge the provider holds' };
  },
};

// ── business-date-reminder ──────────────────────────────────────────────

const REMINDER = { orderId: 1042, customer: 'ada@example.com' };
/**
 * Ada's other order, due on the same days: a key naming the customer or the date alone, rather
 * than the order and the date, answers one of the two with the other's reminder.
 */
const OTHER_REMINDER = { orderId: 1043, customer: 'ada@example.com' };
const REMINDED_ORDERS = [REMINDER.orderId, OTHER_REMINDER.orderId];
/** Midnight after the first day (the run starts 2026-01-05 09:00 UTC). */
const MIDNIGHT_MS = 15 * HOUR_MS;
/** How long a received reminder stays invisible before the queue hands it out again. */
export const REMINDER_VISIBILITY_MS = 90_000;
/**
 * On seeds 2, 6, 10, … a received reminder comes back after 30 s, while a dead worker's 60 s claim
 * is still live: a delivery that takes "claimed, not done" for "sent" then loses that day's reminder.
 */
export function reminderVisibilityFor(seed: number | undefined): number {
  return samePriceOn(seed) ? 30_000 : REMINDER_VISIBILITY_MS;
}
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
/**
 * Seeds 3, 7, 11, …: the next day's reminders fire at 04:30 UTC, from a scheduler in another
 * region: still the 5th in New York, so a date taken from the attempt in a server's zone is the
 * day before the business date.
 */
const EARLY_NEXT_DAY: { atMs: number; why: string } = { atMs: MIDNIGHT_MS + 4.5 * HOUR_MS, why: "the next day, 04:30 UTC: a scheduler in another region fires that day's reminders early" };

/**
 * Seeds 5, 13, 21, …: the order is still unpaid a week later and a month later, and due again a
 * year later, and the scheduler fires its reminders on Monday 12 January, the same weekday as the
 * first, on 5 February, the same day of the month, and on 5 January of the next year, the same
 * month and day: a key that keeps the weekday, or the day but not the month, or the month and day
 * but not the year, finds an earlier reminder done and sends nothing.
 */
const NEXT_WEEK: { atMs: number; why: string } = { atMs: 7 * 24 * HOUR_MS, why: "a week later, 09:00: the orders are still unpaid and Monday 12 January's reminders are due" };
const NEXT_MONTH: { atMs: number; why: string } = { atMs: 31 * 24 * HOUR_MS, why: "a month later, 09:00: the orders are still unpaid and 5 February's reminders are due" };
const NEXT_YEAR: { atMs: number; why: string } = { atMs: 365 * 24 * HOUR_MS, why: "a year later, 09:00: the orders are due again and 5 January's reminders of the next year are due" };
/** What the scheduler fires on those seeds after the first two days. */
const LATER = [NEXT_WEEK, NEXT_MONTH, NEXT_YEAR];

/** Whether the run with `seed` has the scheduler fire again a week, a month and a year later. */
export function nextMonthOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 8 === 5;
}

/** The scheduler's runs for a run with `seed`: the same business dates either way, and a week, a month and a year later on some seeds. */
function reminderPlan(seed: number | undefined): { atMs: number; why: string }[] {
  const plan = nearBoundaryOn(seed) ? [...REMINDER_PLAN.slice(0, -1), EARLY_NEXT_DAY] : REMINDER_PLAN;
  return nextMonthOn(seed) ? [...plan, ...LATER] : plan;
}

/** The business dates a run with `seed` has reminders due on. */
export function reminderDueDates(seed: number | undefined): string[] {
  return [...new Set([...REMINDER_PLAN, ...(nextMonthOn(seed) ? LATER : [])].map((p) => simDate(p.atMs)))];
}

/**
 * Seeds 9, 17, 25, …: a reminder that fails is handed out again only the next morning, 23 h after
 * its first delivery (a redrive of what failed overnight): past midnight, and past 04:00, when the
 * attempt's date is the next day's in every zone from UTC to New York, but not the date the reminder is for.
 */
export function reminderRedrivenNextMorningOn(seed: number | undefined): boolean {
  return seed !== undefined && seed > 1 && seed % 8 === 1;
}
/** How long after its first delivery a reminder that failed comes back on those seeds. */
export const REMINDER_REDRIVE_MS = 23 * HOUR_MS;

/** How long a run with `seed` lasts: past the last reminder's retries. */
export function reminderHorizonMs(seed: number | undefined): number {
  return (nextMonthOn(seed) ? NEXT_YEAR.atMs : 24 * HOUR_MS) + (reminderRedrivenNextMorningOn(seed) ? REMINDER_REDRIVE_MS : 0) + 2 * HOUR_MS;
}

export function schedulerProcess(seed?: number): ProcessSpec {
  return {
    id: 'scheduler',
    producer: true,
    async main(env) {
      for (const p of reminderPlan(seed)) {
        const wait = p.atMs - (env.clock.now() - SIM_EPOCH_MS);
        if (wait > 0) await env.sleep(wait);
        env.log(p.why);
        await env.queue.publish('reminder-due', { ...REMINDER, businessDate: simDate(p.atMs) });
        await env.queue.publish('reminder-due', { ...OTHER_REMINDER, businessDate: simDate(p.atMs) });
      }
    },
  };
}

type SentReminder = { emailId: string; by: string; atMs: number; step: number };

function remindersByDate(ctx: Parameters<Invariant['check']>[0], orderId: number) {
  const byDate = new Map<string, SentReminder[]>();
  for (const e of ctx.outcome.ledger.emails) {
    if (e.orderId !== orderId || e.template !== 'reminder') continue;
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

export const oneReminderPerDay: Invariant = {
  id: 'one-reminder-per-date',
  title: 'At most one reminder per order per business date',
  check(ctx) {
    for (const orderId of REMINDED_ORDERS) {
      for (const [date, sent] of remindersByDate(ctx, orderId)) {
        if (sent.length > 1) {
          const late = sent.some((e) => simDate(e.atMs) !== date);
          return {
            held: false,
            detail: `order ${orderId} got ${sent.length} reminders ${late ? 'for business date' : 'on'} ${date}: ${sent.map((e) => sentText(e, date)).join(', ')}`,
            step: sent[1]!.step,
          };
        }
      }
    }
    return { held: true, detail: 'no order got two reminders for one business date' };
  },
};

export const reminderEachDueDate: Invariant = {
  id: 'reminder-each-due-date',
  title: 'One reminder goes out on each business date it is due',
  check(ctx) {
    const dueDates = (ctx.observed.dueDates as string[] | undefined) ?? reminderDueDates(undefined);
    for (const orderId of REMINDED_ORDERS) {
      const got = remindersByDate(ctx, orderId);
      const missing = dueDates.filter((d) => !got.has(d));
      if (!missing.length) continue;
      // A reminder that went out that day for an earlier date: the day's own was taken for done.
      const stand = missing.flatMap((d) =>
        [...got].flatMap(([forDate, sent]) => sent.filter((e) => forDate !== d && simDate(e.atMs) === d).map((e) => `${e.emailId}, sent on ${d}, was ${forDate}'s`)),
      );
      return {
        held: false,
        detail: `no reminder for order ${orderId} went out for ${missing.join(', ')}, although one was due${stand.length ? ` (${stand.join('; ')})` : ''}`,
      };
    }
    return { held: true, detail: `a reminder for each of orders ${REMINDED_ORDERS.join(' and ')} went out on ${dueDates.join(', ')}` };
  },
};

export const remindCrash = (p: string, when: 'before' | 'after', kind: 'queue.ack' | 'email.send' | 'db'): Fault =>
  when === 'before' ? { kind: 'crash', process: p, before: kind } : { kind: 'crash', process: p, after: kind };

// ── human-rerun ─────────────────────────────────────────────────────────

export interface BillingOrder extends CheckoutOrder {
  email: string;
}

/** Ada has two orders in the job: a key naming the customer rather than the order bills one of them. */
export const JOB_ORDERS: BillingOrder[] = [
  { id: 3001, customerId: 'cus_ada', totalCents: 2_500, email: 'ada@example.com' },
  { id: 3002, customerId: 'cus_grace', totalCents: 4_200, email: 'grace@example.com' },
  { id: 3003, customerId: 'cus_ada', totalCents: 990, email: 'ada@example.com' },
];
export const JOB_IDS = JOB_ORDERS.map((o) => o.id);

/**
 * The job's orders for `seed`: on seeds 2, 6, 10, … Ada's second order costs what her first does
 * (she bought the same thing twice), so a key naming the customer and the amount bills one of them.
 */
export function jobOrdersFor(seed: number | undefined): BillingOrder[] {
  const same = samePriceOn(seed);
  return JOB_ORDERS.map((o) => ({ ...o, ...(same && o.id === 3003 ? { totalCents: JOB_ORDERS[0]!.totalCents } : {}) }));
}
/**
 * Seeds 4, 8, 12, …: the operator's rerun lists the same orders the other way round (the job's
 * query has no ORDER BY), so a key naming a line of the job names another order on the rerun.
 */
export function rerunReversedOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 4 === 0;
}
/** The orders the operator's rerun walks, in its order. */
export function rerunOrdersFor(seed: number | undefined): BillingOrder[] {
  const orders = jobOrdersFor(seed);
  return rerunReversedOn(seed) ? orders.reverse() : orders;
}
/** The operator reruns the job the next day at 11:00 — 26 h later, past the provider's 24 h. */
export const OPERATOR_RERUN_MS = 26 * HOUR_MS;
/**
 * Seeds 5, 13, 21, …: the operator, seeing no progress on the dashboard, also starts the job by
 * hand 100 ms after the nightly run began, while the nightly run holds the first order's charge
 * claim and waits for the provider's answer (300 ms). The next day's rerun still comes, and takes
 * over what a crash left claimed.
 */
/**
 * On seeds 3, 11, 19, … the nightly run falls on the month's last evening: from the run's start
 * (Monday 5 January, 09:00 UTC) to Saturday 31 January, 22:00 UTC. The rerun 26 h later is on
 * Monday 2 February at 00:00: a key with the billing month names another operation.
 */
export const MONTH_END_MS = (26 * 24 + 13) * HOUR_MS;
export function monthEndOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 8 === 3;
}
/** When the nightly run starts on a seed's world (0: at the run's start, 09:00 on 5 January). */
export const nightlyStartOn = (seed: number | undefined): number => (monthEndOn(seed) ? MONTH_END_MS : 0);

export const RERUN_AT_ONCE = { atMs: 100, why: 'the dashboard shows no progress, so I am starting the billing job by hand as well' };
export function rerunAtOnceOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 8 === 5;
}

export const everyOrderBilled: Invariant = {
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

/**
 * No receipt goes out before its order's charge was confirmed: some charge call for that order had
 * been answered with a charge (a first answer or a replay, to any process) before the e-mail was
 * sent. A job that sends the receipt beside the charge e-mails about money it may never take.
 */
export const receiptAfterCharge: Invariant = {
  id: 'receipt-after-charge',
  title: 'A receipt only after its charge went through',
  check({ outcome }) {
    const confirmed = new Map<number, number>();
    for (const e of outcome.trace) {
      if (e.type !== 'reply' || (e.data as { failed?: unknown } | undefined)?.failed) continue;
      const call = answeredCall(outcome.trace, e);
      const orderId = (call?.data as { request?: { orderId?: unknown } } | undefined)?.request?.orderId;
      if (call?.call === 'payments.charge' && typeof orderId === 'number' && !confirmed.has(orderId)) confirmed.set(orderId, e.i);
    }
    for (const email of outcome.ledger.emails) {
      if (!JOB_IDS.includes(email.orderId)) continue;
      const at = confirmed.get(email.orderId);
      if (at === undefined || at > email.step) {
        return {
          held: false,
          detail: `${email.emailId}, the receipt for order ${email.orderId}, was sent by ${email.by} at ${formatSimMoment(email.atMs)} ${at === undefined ? 'and no charge for it was ever confirmed' : 'before any charge for it was confirmed'}`,
          step: email.step,
        };
      }
    }
    return { held: true, detail: 'every receipt went out after its charge was confirmed' };
  },
};

