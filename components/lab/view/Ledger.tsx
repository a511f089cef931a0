/**
 * What the outside world saw, up to the selected event: e-mails per order (a duplicate is the
 * bug this course is about, so it is called out; a reminder counts per business date), every
 * e-mail and charge the providers really made, credits the metered API billed (an item billed
 * twice is called out), items it refused or never answered, requests answered from an idempotency
 * key, refusals and published messages.
 */
import type { ReactNode } from 'react';
import type { LabRun } from '@/simulations/run/lab-run';
import type { CreditSpent, ItemRefusal, Ledger as LedgerData, SentEmail } from '@/simulations/providers/index';
import { businessDateOf } from '@/simulations/lessons/kit/business-date';
import type { TraceEvent } from '@/simulations/engine/types';
import { formatSimMoment, ledgerAt, shortKey } from './snapshots';

export interface LedgerProps {
  run: LabRun;
  /** The selected trace event index: entries up to and including it are shown. */
  selected: number;
  /**
   * The scenario's actors. A provider's sections show only when it is one of them (or the run has
   * its entries), so an outbox lab shows no empty "Receipts per order". Without them, the trace decides.
   */
  actors?: readonly string[];
}

function dollars(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

function countBy<T>(xs: readonly T[], key: (x: T) => number): [number, number][] {
  const m = new Map<number, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return [...m.entries()];
}

function Section({ title, count, children }: { title: string; count?: number; children: ReactNode }) {
  return (
    <section>
      <h3 className="flex items-baseline gap-2 text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">
        {title}
        {count !== undefined && <span className="rounded-full bg-slate-100 px-1.5 font-mono text-[11px] text-slate-600 normal-case dark:bg-slate-800 dark:text-slate-300">{count}</span>}
      </h3>
      <div className="mt-1.5">{children}</div>
    </section>
  );
}

function Empty({ children }: { children: ReactNode }) {
  return <p className="text-sm text-slate-500 italic dark:text-slate-400">{children}</p>;
}

function Key({ value }: { value: string | undefined }) {
  if (!value) return <span className="text-slate-500 italic dark:text-slate-400">no key</span>;
  return (
    <span className="font-mono" title={value}>
      key {shortKey(value)}
    </span>
  );
}

/**
 * E-mails grouped as the invariants count them: receipts per order, reminders per order and the
 * business date they were for (a redelivery after midnight is still the previous day's reminder).
 */
function emailGroups(emails: readonly SentEmail[], trace: readonly TraceEvent[]): { key: string; noun: string; orderId: number; on?: string; count: number }[] {
  const groups = new Map<string, { key: string; noun: string; orderId: number; on?: string; count: number }>();
  for (const e of emails) {
    const noun = e.template === 'reminder' ? 'reminder' : e.template ? `${e.template} e-mail` : 'receipt';
    const on = e.template === 'reminder' ? businessDateOf(trace, e) : undefined;
    const key = `${noun}|${e.orderId}|${on ?? ''}`;
    const g = groups.get(key) ?? { key, noun, orderId: e.orderId, on, count: 0 };
    g.count++;
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** Credits grouped by item: an item billed more than once paid for a replay. */
function creditGroups(credits: readonly CreditSpent[]): { item: string; label: string; kind: CreditSpent['kind']; outputs: string[]; count: number; last: CreditSpent }[] {
  const groups = new Map<string, { item: string; label: string; kind: CreditSpent['kind']; outputs: string[]; count: number; last: CreditSpent }>();
  for (const c of credits) {
    const g = groups.get(c.item) ?? { item: c.item, label: itemLabel(c.item), kind: c.kind, outputs: [], count: 0, last: c };
    g.count++;
    g.outputs.push(c.output);
    g.last = c;
    groups.set(c.item, g);
  }
  // Two items with one label (the same text under two secrets) are told apart by their secret.
  const all = [...groups.values()];
  const shared = new Set(all.filter((g) => all.some((o) => o !== g && o.label === g.label)));
  for (const g of shared) g.label = itemLabel(g.item, true);
  return all;
}

const CODE_MEANING: Record<ItemRefusal['code'], string> = {
  429: '(rate window full)',
  402: '(out of credits)',
  'no-response': '(past the batch deadline)',
};

/** Refusals of one request together (a batch refuses many items at once), by code. */
function refusalsByRequest(refusals: readonly ItemRefusal[]) {
  const groups = new Map<number, { step: number; by: string; atMs: number; parts: { code: ItemRefusal['code']; items: string[] }[] }>();
  for (const r of refusals) {
    const g = groups.get(r.step) ?? { step: r.step, by: r.by, atMs: r.atMs, parts: [] };
    let part = g.parts.find((p) => p.code === r.code);
    if (!part) g.parts.push((part = { code: r.code, items: [] }));
    part.items.push(itemLabel(r.item));
    groups.set(r.step, g);
  }
  return [...groups.values()];
}

/**
 * "hmac of order-1042:charge", "check ada@example.com": an item as a learner recognises it; with
 * `withSecret`, "hmac of order-1044:charge under whsec_rotated", for two items of the same text.
 */
function itemLabel(item: string, withSecret = false): string {
  try {
    const v = JSON.parse(item) as { kind?: string; input?: string; value?: string; secret?: string };
    if (v.value !== undefined) return `check ${v.value}`;
    const input = String(v.input ?? '');
    return `${v.kind} of ${input.length > 28 ? `${input.slice(0, 27)}…` : input}${withSecret && v.secret ? ` under ${v.secret}` : ''}`;
  } catch {
    return item;
  }
}

/** The first message before `i` with the same topic and body as the `i`th, if any. */
export function firstOfSame<T extends { topic: string; body: unknown }>(published: readonly T[], i: number): T | undefined {
  const { topic } = published[i];
  const body = JSON.stringify(published[i].body);
  for (let k = 0; k < i; k++) if (published[k].topic === topic && JSON.stringify(published[k].body) === body) return published[k];
  return undefined;
}

function Dup({ count, noun, orderId, on }: { count: number; noun: string; orderId: number; on?: string }) {
  return (
    <li
      className={`flex items-center justify-between gap-2 rounded-md border px-3 py-1.5 text-sm ${
        count > 1
          ? 'border-red-300 bg-red-50 font-semibold text-red-900 dark:border-red-500/40 dark:bg-red-500/10 dark:text-red-100'
          : 'border-emerald-200 bg-emerald-50 text-emerald-900 dark:border-emerald-500/30 dark:bg-emerald-500/10 dark:text-emerald-100'
      }`}
    >
      <span>
        {count > 1 && (
          <span aria-hidden="true" className="mr-1.5">
            ⚠
          </span>
        )}
        {count} {count === 1 ? noun : `${noun}s`} for order {orderId}
        {on && ` due ${on}`}
        {count > 1 && <span className="font-normal"> — duplicate</span>}
      </span>
      {count === 1 && (
        <span aria-hidden="true" className="font-bold">
          ✓
        </span>
      )}
    </li>
  );
}

export function Ledger({ run, selected, actors }: LedgerProps) {
  const full: LedgerData = run.result.ledger;
  const now = ledgerAt(full, selected);
  // At the run's last event "yet" would promise more to come.
  const atEnd = selected >= run.result.trace.length - 1;
  // "No charges made yet." while the run plays; "No charges were made in this run." once it is over.
  const none = (what: string, verb: string) => `No ${what} ${atEnd ? `${what.endsWith('s') ? 'were' : 'was'} ${verb} in this run` : `${verb} yet`}.`;
  const trace = run.result.trace;
  const timeAt = (i: number) => (trace[i] ? formatSimMoment(trace[i].t) : '');
  const reaches = (provider: string) => trace.some((e) => e.target === provider || e.actor === provider);
  const has = (provider: string) => (actors ? actors.includes(provider) : reaches(provider));
  const showPayments = full.charges.length > 0 || has('payments');
  const showMetered = full.credits.length > 0 || full.itemRefusals.length > 0 || has('transform') || has('lookup');
  // Receipt lessons may never reach the e-mail provider (that is their bug): with the actors known
  // that is no guess; without them, only a payments- or metered-only run hides it.
  const showEmail = full.emails.length > 0 || (actors ? has('email') : reaches('email') || (!showPayments && !showMetered));
  const nothing = !showEmail && !showPayments && !showMetered && full.replays.length === 0 && full.refusals.length === 0 && full.published.length === 0;
  const emailsPerOrder = emailGroups(now.emails, run.result.trace);
  const onlyReceipts = full.emails.every((e) => !e.template);
  const chargesPerOrder = countBy(now.charges, (c) => c.orderId);
  const credits = creditGroups(now.credits);

  const row = 'rounded-md border border-slate-200 px-3 py-1.5 text-sm text-slate-700 dark:border-slate-800 dark:text-slate-300';
  const repeatRow = 'rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-950 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-100';

  return (
    <div data-testid="ledger" className="space-y-5">
      <p className="text-xs text-slate-500 dark:text-slate-400">
        What the providers really did, up to {selected >= 0 ? `event ${selected + 1} of ${trace.length}` : 'the start'}: the ground truth the invariants check.
      </p>

      {nothing && <Empty>No provider took part in this run.</Empty>}

      {showEmail && (
        <>
          <Section title={onlyReceipts ? 'Receipts per order' : 'E-mails per order'}>
            {emailsPerOrder.length === 0 ? (
              <Empty>{none(onlyReceipts ? 'receipts' : 'e-mails', 'sent')}</Empty>
            ) : (
              <ul className="space-y-1.5">
                {emailsPerOrder.map((g) => (
                  <Dup key={g.key} count={g.count} noun={g.noun} orderId={g.orderId} on={g.on} />
                ))}
              </ul>
            )}
          </Section>
          <Section title="E-mails sent" count={now.emails.length}>
            {now.emails.length === 0 ? (
              <Empty>{none('e-mails', 'sent')}</Empty>
            ) : (
              <ol className="space-y-1.5">
                {now.emails.map((e) => (
                  <li key={e.emailId} className={row}>
                    <span className="font-mono font-semibold text-slate-900 dark:text-slate-100">{e.emailId}</span> {e.template && <span className="font-mono">{e.template}</span>} to {e.to} · order{' '}
                    {e.orderId} · by{' '}
                    <span className="font-mono">{e.by}</span> at {formatSimMoment(e.atMs)} · <Key value={e.key} />
                  </li>
                ))}
              </ol>
            )}
          </Section>
        </>
      )}

      {showPayments && (
        <>
          {chargesPerOrder.length > 0 && (
            <Section title="Charges per order">
              <ul className="space-y-1.5">
                {chargesPerOrder.map(([orderId, n]) => (
                  <Dup key={orderId} count={n} noun="charge" orderId={orderId} />
                ))}
              </ul>
            </Section>
          )}
          <Section title="Charges made" count={now.charges.length}>
            {now.charges.length === 0 ? (
              <Empty>{none('charges', 'made')}</Empty>
            ) : (
              <ol className="space-y-1.5">
                {now.charges.map((c) => (
                  <li key={c.chargeId} className={row}>
                    <span className="font-mono font-semibold text-slate-900 dark:text-slate-100">{c.chargeId}</span> {dollars(c.amountCents)} · order {c.orderId} · by{' '}
                    <span className="font-mono">{c.by}</span> at {formatSimMoment(c.atMs)} · <Key value={c.key} />
                  </li>
                ))}
              </ol>
            )}
          </Section>
        </>
      )}

      {showMetered && (
        <>
          <Section title="Credits spent" count={now.credits.length}>
            {credits.length === 0 ? (
              <Empty>{none('credits', 'billed')}</Empty>
            ) : (
              <ol className="space-y-1.5">
                {credits.map((g) => (
                  <li
                    key={g.item}
                    className={
                      g.count > 1
                        ? 'rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-100'
                        : row
                    }
                  >
                    {g.count > 1 && (
                      <span aria-hidden="true" className="mr-1.5">
                        ⚠
                      </span>
                    )}
                    <span className="font-mono">{g.label}</span> · {g.count} credit{g.count === 1 ? '' : 's'}
                    {g.count > 1 && <span className="font-semibold"> — billed again for a replay</span>} · {g.kind === 'lookup' ? 'answered' : 'output'}{' '}
                    <span className="font-mono">{[...new Set(g.outputs)].map((o) => shortKey(o, 12)).join(' → ')}</span> · last by <span className="font-mono">{g.last.by}</span> at{' '}
                    {formatSimMoment(g.last.atMs)}
                  </li>
                ))}
              </ol>
            )}
          </Section>
          {full.itemRefusals.length > 0 && (
            <Section title="Items refused or unanswered (not billed)" count={now.itemRefusals.length}>
              {now.itemRefusals.length === 0 ? (
                <Empty>{none('item', 'refused')}</Empty>
              ) : (
                <ol className="space-y-1.5">
                  {refusalsByRequest(now.itemRefusals).map((g) => (
                    <li key={g.step} className={row}>
                      <span className="font-mono">{g.by}</span> at {formatSimMoment(g.atMs)}:{' '}
                      {g.parts.map((p, k) => (
                        <span key={p.code}>
                          {k > 0 && ', '}
                          <span className="font-mono font-semibold">{p.code === 'no-response' ? 'no response' : p.code}</span> {CODE_MEANING[p.code]} for{' '}
                          <span className="font-mono" title={p.items.join('\n')}>
                            {p.items.length === 1 ? p.items[0] : `${p.items.length} items`}
                          </span>
                        </span>
                      ))}
                    </li>
                  ))}
                </ol>
              )}
            </Section>
          )}
        </>
      )}

      {full.replays.length > 0 && (
        <Section title="Answered from a key" count={now.replays.length}>
          {now.replays.length === 0 ? (
            <Empty>{none('request', 'answered from a key')}</Empty>
          ) : (
            <ol className="space-y-1.5">
              {now.replays.map((r, k) => (
                <li key={k} className="rounded-md border border-emerald-200 bg-emerald-50/60 px-3 py-1.5 text-sm text-emerald-900 dark:border-emerald-500/30 dark:bg-emerald-500/10 dark:text-emerald-100">
                  <span className="font-mono">{r.kind}</span> by <span className="font-mono">{r.by}</span> at {timeAt(r.step)} with <Key value={r.key} />: the provider returned the
                  original, nothing new happened
                </li>
              ))}
            </ol>
          )}
        </Section>
      )}

      {full.refusals.length > 0 && (
        <Section title="Refused" count={now.refusals.length}>
          {now.refusals.length === 0 ? (
            <Empty>{none('request', 'refused')}</Empty>
          ) : (
            <ol className="space-y-1.5">
              {now.refusals.map((r, k) => (
                <li key={k} className="rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-100">
                  <span className="font-mono">{r.kind}</span> by <span className="font-mono">{r.by}</span> at {timeAt(r.step)}: <Key value={r.key} /> reused with other parameters
                  (idempotency_error)
                </li>
              ))}
            </ol>
          )}
        </Section>
      )}

      {full.published.length > 0 && (
        <Section title="Messages published" count={now.published.length}>
          {now.published.length === 0 ? (
            <Empty>{none('messages', 'published')}</Empty>
          ) : (
            <ol className="space-y-1.5">
              {now.published.map((p, i) => {
                // The same message again (same topic, same body): an at-least-once relay's repeat,
                // which the consumers must absorb. Called out, as a second receipt is.
                const first = firstOfSame(now.published, i);
                return (
                  <li key={p.id} data-repeat-of={first?.id} className={first ? repeatRow : row}>
                    {first && (
                      <span aria-hidden="true" className="mr-1.5">
                        ⚠
                      </span>
                    )}
                    <span className="font-mono font-semibold text-slate-900 dark:text-slate-100">{p.id}</span> on <span className="font-mono">{p.topic}</span> by{' '}
                    <span className="font-mono">{p.by}</span> at {timeAt(p.step)} · <span className="font-mono text-xs [overflow-wrap:anywhere]">{JSON.stringify(p.body)}</span>
                    {first && <span className="font-semibold"> — the same message as {first.id}, published again</span>}
                  </li>
                );
              })}
            </ol>
          )}
        </Section>
      )}
    </div>
  );
}
