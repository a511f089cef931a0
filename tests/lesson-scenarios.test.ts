/**
 * The six scenarios that complete the lesson, beyond both directions (tests/scenarios.test.ts):
 * the metered provider's semantics (credits, 429, 402, the unanswered tail, answers that move),
 * the payment provider's retention and key mismatch inside a run, canaries — near-miss variants
 * that must be caught — determinism, and the replay-safety table as data. A failing run prints its
 * seed and the command that replays it.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { lookupVerdictAt, Providers, transformOutput } from '../simulations/providers/index';
import { creditsLeft, meteredSettings } from '../simulations/providers/metered-account';
import { REPLAY_BINS, REPLAY_OPERATIONS } from '../simulations/lessons/replay-safety/sorting';
import { explore, runScenario } from '../simulations/run/run';
import { firstInTransaction } from '../simulations/lessons/kit/scenario';
import { lessonById } from '../simulations/lessons/index';
import type { Fault, LookupResult, TraceEvent, TransformRequest, TransformResult } from '../simulations/engine/types';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();

const NEW_IDS = ['replay-safety', 'moving-answers', 'batch-credits', 'ambiguous-timeout-charge', 'business-date-reminder', 'human-rerun'];

const item = (i: number): TransformRequest => ({ kind: 'hmac', input: `order-${1042 + i}:charge`, secret: 'whsec_demo' });

describe('the metered provider', () => {
  test('a transformation is real HMAC-SHA256 and bills one credit per success; the same input gives the same output', () => {
    const p = new Providers({ metered: { credits: 3 } });
    const a = p.apply('transform.call', item(0), undefined, { nowMs: 0, step: 0, by: 'job' }).response as TransformResult;
    const b = p.apply('transform.call', item(0), undefined, { nowMs: 10, step: 1, by: 'job' }).response as TransformResult;
    const expected = bytesToHex(hmac(sha256, utf8ToBytes('whsec_demo'), utf8ToBytes('order-1042:charge')));
    expect(a).toEqual({ ok: true, output: expected, creditsLeft: 2 });
    expect(b).toEqual({ ok: true, output: expected, creditsLeft: 1 });
    expect(p.ledger.credits.map((c) => c.kind)).toEqual(['transform', 'transform']);
    expect(transformOutput({ kind: 'html-to-pdf', input: '<h1>x</h1>' })).toBe(transformOutput({ kind: 'html-to-pdf', input: '<h1>x</h1>' }));
    expect(transformOutput({ kind: 'html-to-pdf', input: '<h1>x</h1>' })).not.toBe(transformOutput({ kind: 'html-to-pdf', input: '<h1>y</h1>' }));
  });

  test('a batch answers in order: successes, then 402 without credits, 429 past the rate window, and no result past the deadline', () => {
    const options = { metered: { credits: 5, topUps: [{ atMs: 60_000, credits: 10 }], rateLimit: { items: 6, windowMs: 10_000 }, maxItemsPerRequest: 8 } };
    const p = new Providers(options);
    const items = Array.from({ length: 10 }, (_, i) => item(i));
    const results = p.apply('transform.batch', items, undefined, { nowMs: 1_000, step: 0, by: 'job' }).response as TransformResult[];
    expect(results).toHaveLength(8);
    expect(results.slice(0, 5).every((r) => r.ok)).toBe(true);
    results.slice(0, 5).forEach((r, i) => expect(r.ok && r.output).toBe(transformOutput(items[i]!)));
    expect(results[5]).toMatchObject({ ok: false, code: 402, retryAfterMs: 59_000 });
    expect(results[6]).toMatchObject({ ok: false, code: 429, retryAfterMs: 9_000 });
    expect(results[7]).toMatchObject({ ok: false, code: 429 });
    expect(p.ledger.credits).toHaveLength(5);
    expect(p.ledger.itemRefusals.map((r) => r.code)).toEqual([402, 429, 429, 'no-response', 'no-response']);
    // Refused and unanswered items were not billed; after the renewal the rest go through.
    const later = p.apply('transform.batch', items.slice(5), undefined, { nowMs: 60_000, step: 1, by: 'job' }).response as TransformResult[];
    expect(later.every((r) => r.ok)).toBe(true);
    expect(creditsLeft(meteredSettings(options), p.ledger, 60_000)).toBe(5);
  });

  test('402 says when credits come back, or null when none are coming', () => {
    const p = new Providers({ metered: { credits: 0 } });
    expect(p.apply('transform.call', item(0), undefined, { nowMs: 0, step: 0, by: 'job' }).response).toMatchObject({ ok: false, code: 402, retryAfterMs: null });
    expect(p.ledger.credits).toHaveLength(0);
  });

  test('a lookup bills a credit and its answer moves with simulated time', () => {
    const p = new Providers({ metered: { credits: 10, answerPeriodMs: 20_000 } });
    const ask = (t: number) => (p.apply('lookup.check', { kind: 'email-deliverability', value: 'ada@example.com' }, undefined, { nowMs: t, step: 0, by: 'w' }).response as LookupResult).verdict;
    expect(ask(0)).toBe('deliverable');
    expect(ask(19_999)).toBe('deliverable');
    expect(ask(20_000)).toBe('risky');
    expect(ask(45_000)).toBe('undeliverable');
    expect(p.ledger.credits).toHaveLength(4);
    expect(lookupVerdictAt(60_000, 20_000)).toBe('deliverable');
  });

  test('malformed requests are refused with a message, and nothing is billed', () => {
    const p = new Providers({});
    expect(p.apply('transform.batch', [{ kind: 'gzip', input: 'x' }], undefined, { nowMs: 0, step: 0, by: 'job' }).error?.message).toMatch(/hmac.*html-to-pdf/);
    expect(p.apply('lookup.check', { kind: 'email-deliverability' }, undefined, { nowMs: 0, step: 0, by: 'job' }).error?.message).toMatch(/value/);
    expect(p.ledger.credits).toHaveLength(0);
  });
});

describe('the e-mail provider', () => {
  test('remembers a key for 24 hours, as the payment provider does, and then forgets it', () => {
    const p = new Providers({});
    const send = (atMs: number) => p.apply('email.send', { to: 'ada@example.com', orderId: 1 }, { idempotencyKey: 'receipt-1' }, { nowMs: atMs, step: 0, by: 'job' }).response;
    expect(send(0)).toEqual({ emailId: 'em_1', replayed: false });
    expect(send(23 * 3_600_000)).toEqual({ emailId: 'em_1', replayed: true });
    expect(p.ledger.emails).toHaveLength(1);
    expect(send(24 * 3_600_000)).toEqual({ emailId: 'em_2', replayed: false });
    expect(p.ledger.emails).toHaveLength(2);
    const short = new Providers({ emailRetentionHours: 1 });
    short.apply('email.send', { to: 'a@b.c', orderId: 2 }, { idempotencyKey: 'k' }, { nowMs: 0, step: 0, by: 'job' });
    expect(short.apply('email.send', { to: 'a@b.c', orderId: 2 }, { idempotencyKey: 'k' }, { nowMs: 3_600_000, step: 0, by: 'job' }).response).toMatchObject({ replayed: false });
  });

  test("human-rerun's solution names a gap that is real: a crash between the receipt and its complete, rerun 26 h later, sends it again", async () => {
    const scenario = lessonById('human-rerun');
    const faults: Fault[] = [{ kind: 'crash', process: 'nightly-job', after: 'email.send', nth: 1 }];
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1, faults });
    expect(r.invariants.find((i) => i.id === 'at-most-one-receipt')?.held, replayHint(r)).toBe(false);
    // Shown, and named as the gap: Explore does not hold it against the code.
    expect(r.invariants.find((i) => i.id === 'at-most-one-receipt')?.beyondKeys, replayHint(r)).toBe(true);
    // The crash the lab's fault menu offers instead lands before the send: the rerun sends that receipt once.
    const before = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1, faults: [{ kind: 'crash', process: 'nightly-job', before: 'email.send', nth: 1 }] });
    expect(before.verdict, replayHint(before)).toBe('held');
  });
});

describe('the payment provider inside a run', () => {
  const scenario = lessonById('ambiguous-timeout-charge');

  test('a provider key alone is not enough: the rerun after the 24-hour retention charges again (canary)', async () => {
    const keyOnly = `import { opKey, type CheckoutOrder, type Env } from 'effectively-once';
export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}`;
    const r = await runScenario(sim.db, { scenario, code: keyOnly, variant: 'key-only', seed: 1 });
    // The same-day retry was answered from the key…
    expect(r.ledger.replays.map((x) => x.by), replayHint(r)).toEqual(['checkout']);
    // …but the provider had forgotten it by the next day.
    const first = r.ledger.charges.filter((c) => c.orderId === 2077);
    const charges = first.map((c) => [c.by, c.key === first[0]?.key]);
    expect(charges, replayHint(r)).toEqual([
      ['checkout', true],
      ['rerun', true],
    ]);
    expect(r.invariants.find((i) => i.id === 'no-double-charge')?.held, replayHint(r)).toBe(false);
  });

  test('the solution answers the rerun from its own table: one charge, and the rerun reports it', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1 });
    expect(r.ledger.charges.filter((c) => c.orderId === 2077), replayHint(r)).toHaveLength(1);
    // The same customer's next order is charged on its own.
    expect(r.ledger.charges.filter((c) => c.orderId === 2078).map((c) => c.by), replayHint(r)).toEqual(['next-order']);
    expect(r.trace.some((e) => e.actor === 'rerun' && e.type === 'call'), replayHint(r)).toBe(false);
    expect(r.verdict, replayHint(r)).toBe('held');
  });

  test('reusing the key with a different amount is refused with idempotency_error', async () => {
    const changed = `import { opKey, type CheckoutOrder, type Env } from 'effectively-once';
export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });
  try {
    return await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: key });
  } catch {
    // A "retry" that changed the amount (a coupon applied in between) under the same key.
    return await env.payments.charge({ orderId: order.id, amountCents: order.totalCents - 500, customer: order.customerId }, { idempotencyKey: key });
  }
}`;
    const r = await runScenario(sim.db, { scenario, code: changed, variant: 'changed-amount', seed: 1 });
    expect(r.ledger.refusals.map((x) => [x.kind, x.by]), replayHint(r)).toEqual([['payments.charge', 'checkout']]);
    expect(r.trace.some((e) => e.type === 'reply' && /Keys for idempotent requests/.test(e.text)), replayHint(r)).toBe(true);
    expect(r.ledger.charges.filter((c) => c.by === 'checkout'), replayHint(r)).toHaveLength(1);
  });
});

describe('canaries: near misses the invariants must catch', () => {
  test('business-date-reminder: a key of the order alone silences the next day', async () => {
    const scenario = lessonById('business-date-reminder');
    const code = scenario.variants.solution.code.replace('    businessDate: msg.businessDate,\n', '');
    expect(code).not.toBe(scenario.variants.solution.code);
    const r = await runScenario(sim.db, { scenario, code, variant: 'order-only-key', seed: 1 });
    expect(r.invariants.find((i) => i.id === 'reminder-each-due-date')?.held, replayHint(r)).toBe(false);
    expect(r.invariants.find((i) => i.id === 'one-reminder-per-date')?.held, replayHint(r)).toBe(true);
  });

  test('business-date-reminder: the solution sends one on each date, nothing on the same-day rerun', async () => {
    const scenario = lessonById('business-date-reminder');
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1 });
    for (const orderId of [1042, 1043]) {
      const sent = r.ledger.emails.filter((e) => e.orderId === orderId);
      expect(sent.map((e) => e.template), `order ${orderId}: ${replayHint(r)}`).toEqual(['reminder', 'reminder']);
      expect(sent[1]!.atMs, replayHint(r)).toBeGreaterThanOrEqual(24 * 3_600_000);
    }
  });

  test('batch-credits: resending only the failed indices but misplacing the results is caught', async () => {
    const scenario = lessonById('batch-credits');
    // Writes result k to index k instead of to the k-th index sent.
    const code = scenario.variants.solution.code.replace('if (r?.ok) outputs[index] = r.output;', 'if (r?.ok) outputs[k] = r.output;');
    expect(code).not.toBe(scenario.variants.solution.code);
    const r = await runScenario(sim.db, { scenario, code, variant: 'misplaced', seed: 1 });
    expect(r.invariants.find((i) => i.id === 'every-item-transformed')?.held, replayHint(r)).toBe(false);
  });

  test('batch-credits: the solution spends exactly one credit per item, the starter more than the account ever had', async () => {
    const scenario = lessonById('batch-credits');
    const good = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1 });
    expect(good.ledger.credits, replayHint(good)).toHaveLength(10);
    expect(new Set(good.ledger.itemRefusals.map((x) => x.code)), replayHint(good)).toEqual(new Set([429, 402, 'no-response']));
    const bad = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1 });
    expect(bad.ledger.credits.length, replayHint(bad)).toBe(15);
  });

  test('moving-answers: without a replay nothing moves, and the starter holds (the fault is what shows it)', async () => {
    const scenario = lessonById('moving-answers');
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1, faults: [] });
    expect(r.verdict, replayHint(r)).toBe('held');
  });

  test('human-rerun: provider keys alone are forgotten by the next day; only the operations table holds', async () => {
    const scenario = lessonById('human-rerun');
    const keysOnly = `import { opKey, type CheckoutOrder, type Env } from 'effectively-once';
type BillingOrder = CheckoutOrder & { email: string };
export async function runBillingJob(orders: BillingOrder[], env: Env) {
  for (const order of orders) {
    await env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: opKey('charge', { orderId: order.id }) });
    await env.email.send({ to: order.email, orderId: order.id }, { idempotencyKey: opKey('receipt-email', { orderId: order.id }) });
  }
}`;
    const r = await runScenario(sim.db, { scenario, code: keysOnly, variant: 'provider-keys-only', seed: 1 });
    expect(r.invariants.find((i) => i.id === 'no-double-charge')?.held, replayHint(r)).toBe(false);
    // Neither provider remembers a key 26 hours on: the receipts repeat as well.
    expect(r.invariants.find((i) => i.id === 'at-most-one-receipt')?.held, replayHint(r)).toBe(false);
    expect(r.ledger.emails.filter((e) => e.orderId === r.ledger.emails[0]?.orderId), replayHint(r)).toHaveLength(2);
    // The narration says why the same key did not stop them (a learner saw only "charge #2").
    const calls = r.trace.filter((e) => e.type === 'call' && e.actor === 'operator').map((e) => e.text);
    expect(calls, replayHint(r)).toContainEqual(expect.stringMatching(/charge ch_4 created — charge #2 for order 3001 \(this key was first used 26 h ago; the provider keeps keys 24 h, so it had forgotten it\)$/));
    expect(calls, replayHint(r)).toContainEqual(expect.stringMatching(/receipt #2 for order 3001 \(this key was first used 26 h ago; the provider keeps keys 24 h, so it had forgotten it\)$/));
    expect(r.trace.filter((e) => e.actor === 'nightly-job' && /forgotten/.test(e.text)), replayHint(r)).toEqual([]);
  });

  test('replay-safety: a starter that protects only the charge still counts twice', async () => {
    const scenario = lessonById('replay-safety');
    const code = scenario.variants.starter.code
      .replace("import type { Env } from 'effectively-once';", "import { opKey, type Env } from 'effectively-once';")
      .replace(
        '    customer: event.customerId,\n  });',
        "    customer: event.customerId,\n  }, { idempotencyKey: opKey('charge', { orderId: event.orderId }) });",
      );
    expect(code).not.toBe(scenario.variants.starter.code);
    const r = await runScenario(sim.db, { scenario, code, variant: 'charge-key-only', seed: 1 });
    const broken = r.invariants.filter((i) => !i.held).map((i) => i.id);
    expect(broken, replayHint(r)).toEqual(['at-most-one-email', 'counter-correct', 'no-duplicate-row']);
    // The safe half cost credits again, nothing more.
    expect(r.ledger.credits.map((c) => c.kind).sort(), replayHint(r)).toEqual(['lookup', 'lookup', 'transform', 'transform']);
  });
});

test('moving-answers: a handler that returns null is reported as an answer the worker cannot act on, not as a throw', async () => {
  const scenario = lessonById('moving-answers');
  const code = `export async function checkCustomer(msg, env) {\n  return null;\n}`;
  const r = await runScenario(sim.db, { scenario, code, variant: 'learner', seed: 1, faults: [] });
  expect(r.codeErrors[0], replayHint(r)).toMatchObject({ returned: true, message: expect.stringMatching(/must return .* not null$/) });
});

test('a dead-lettered message says how many of its deliveries were answered "retry-later" behind a live lease', async () => {
  const scenario = lessonById('lease-expiry');
  const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
  const settled = r.invariants.find((i) => i.id === 'messages-settled')!;
  expect(settled.detail, replayHint(r)).toMatch(/^message m1 was dead-lettered after 10 deliveries, \d+ of them answered "retry-later" \(its key claimed under a lease still running\), each one using up a delivery$/);
  // Not said where no delivery backed off.
  const plain = await runScenario(sim.db, { scenario: lessonById('receipt-redelivery'), code: 'export async function handleMessage() { throw new Error("down"); }', variant: 'learner', seed: 1, faults: [] });
  expect(plain.invariants.find((i) => i.id === 'messages-settled')?.detail, replayHint(plain)).not.toMatch(/retry-later/);
});

describe('Explore catches the half fixes that only a crash in the gap breaks (a learner review found both passing)', () => {
  test('business-date-reminder: marking the reminder done before sending it loses it when the worker dies in between', async () => {
    const scenario = lessonById('business-date-reminder');
    const markFirst = `import { opKey, type Env, type ReceiptMessage } from 'effectively-once';
type ReminderMessage = ReceiptMessage & { businessDate: string };
export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const r = await env.db.query(
    \`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key\`, [key]);
  if (r.rows.length === 0) return 'ack';
  await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' });
  return 'ack';
}`;
    const demo = await runScenario(sim.db, { scenario, code: markFirst, variant: 'mark-first', seed: scenario.demo.seed });
    expect(demo.verdict, replayHint(demo)).toBe('held'); // the demonstration alone does not show it
    const e = await explore(sim.db, { scenario, code: markFirst, variant: 'mark-first', runs: 200 });
    expect(e.errors).toBe(0);
    expect(e.byInvariant['reminder-each-due-date'] ?? 0).toBeGreaterThan(0);
  }, 120_000);

  test('webhook-dedupe: recording the event and sending in one transaction sends again after a crash between them', async () => {
    const scenario = lessonById('webhook-dedupe');
    const inOneTx = `import { opKey, withTransaction, type Env } from 'effectively-once';
interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }
export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  return withTransaction(env.db, async (tx) => {
    const ins = await tx.query(
      \`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
       ON CONFLICT (op_key) DO NOTHING RETURNING op_key\`, [key]);
    if (ins.rows.length === 0) return 'ack';
    if (event.type === 'payment_intent.succeeded') {
      await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' });
    }
    return 'ack';
  });
}`;
    const demo = await runScenario(sim.db, { scenario, code: inOneTx, variant: 'one-transaction', seed: scenario.demo.seed });
    // On the demonstration one e-mail goes out, but from inside the transaction, which the lab names.
    expect(demo.invariants.find((i) => i.id === 'at-most-one-email')?.held, replayHint(demo)).toBe(true);
    expect(demo.invariants.find((i) => i.id === 'no-email-inside-transaction')?.held, replayHint(demo)).toBe(false);
    const e = await explore(sim.db, { scenario, code: inOneTx, variant: 'one-transaction', runs: 200 });
    expect(e.errors).toBe(0);
    expect(e.byInvariant['at-most-one-email'] ?? 0).toBeGreaterThan(0);
  }, 120_000);
});

describe('what PGlite hides, and look-alikes that skip the lesson (a review found each passing)', () => {
  const fixture = (file: string) => readFileSync(new URL(`./fixtures/anti-patterns/${file}`, import.meta.url), 'utf8');
  const selectInTx = fixture('concurrent-redelivery-select-in-tx.ts');
  const keyOnly = fixture('receipts-key-only.ts');
  const relayTxWithoutLock = fixture('relay-concurrency-tx-without-lock.ts');

  test('firstInTransaction: BEGIN opens, COMMIT/ROLLBACK, a crash or a rollback closes; ROLLBACK TO SAVEPOINT and a second BEGIN do not', () => {
    let i = 0;
    const ev = (actor: string, type: TraceEvent['type'], sql?: string): TraceEvent => ({ i: i++, t: 0, step: 0, actor, type, text: sql ?? type, data: sql ? { sql } : undefined });
    const trace = [
      ev('w1', 'db', 'BEGIN'),
      ev('w1', 'call'), // 1: inside
      ev('w2', 'call'), // 2: w2 has none
      ev('w1', 'db', 'SAVEPOINT a'),
      ev('w1', 'db', 'ROLLBACK TO SAVEPOINT a'),
      ev('w1', 'db', 'begin'),
      ev('w1', 'call'), // 6: still inside
      ev('w1', 'db', 'COMMIT'),
      ev('w1', 'call'), // 8: outside
      ev('w2', 'db', 'START TRANSACTION'),
      ev('w2', 'publish'), // 10: inside
      ev('w2', 'crash'),
      ev('w2', 'publish'), // 12: outside
      ev('w1', 'db', 'BEGIN'),
      ev('w1', 'rollback'),
      ev('w1', 'call'), // 15: outside
      ev('w1', 'db', 'BEGIN'),
      ev('w1', 'db', 'ROLLBACK'),
      ev('w1', 'call'), // 18: outside
    ];
    const inside: number[] = [];
    // A test that never accepts sees every event inside a transaction, in order.
    expect(
      firstInTransaction(trace, (e, tx) => {
        if (e.type !== 'db') inside.push(e.i);
        else expect(tx.begin.actor).toBe(e.actor);
        return false;
      }),
    ).toBeNull();
    expect(inside).toEqual([1, 6, 10]);
    // The first accepted event comes back with its transaction as it stood then.
    const found = firstInTransaction(trace, (e) => e.type === 'call' && e.i > 1);
    expect(found?.e.i).toBe(6);
    expect(found?.tx.begin.i).toBe(0);
    expect(found?.tx.events.map((e) => (e.data as { sql: string }).sql)).toEqual(['SAVEPOINT a', 'ROLLBACK TO SAVEPOINT a']);
  });

  test('concurrent-redelivery: SELECT and INSERT in one transaction sends once here (PGlite serializes), and the e-mail inside the transaction is named', async () => {
    const scenario = lessonById('concurrent-redelivery');
    const demo = await runScenario(sim.db, { scenario, code: selectInTx, variant: 'select-in-tx', seed: scenario.demo.seed, faults: scenario.demo.faults });
    expect(demo.invariants.find((i) => i.id === 'at-most-one-receipt')?.held, replayHint(demo)).toBe(true);
    const inside = demo.invariants.find((i) => i.id === 'no-email-inside-transaction');
    expect(inside?.held, replayHint(demo)).toBe(false);
    expect(inside?.detail).toMatch(/^worker-\d called email\.send at [\d.]+ s inside the transaction it began at [\d.]+ s\. .*PGlite runs one transaction at a time/);
    expect(demo.trace[inside!.step!].type).toBe('call');
  }, 120_000);

  test("the lib solutions never send from inside a transaction, in any scenario that checks it", async () => {
    for (const id of ['receipt-redelivery', 'concurrent-redelivery', 'lease-expiry', 'crash-after-send', 'webhook-dedupe']) {
      const scenario = lessonById(id);
      expect(scenario.invariants.map((i) => i.id), id).toContain('no-email-inside-transaction');
      const e = await explore(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', runs: 60 });
      expect(e.byInvariant['no-email-inside-transaction'], id).toBe(0);
    }
  }, 180_000);

  test('concurrent-redelivery and lease-expiry: their e-mail provider says it ignores a key (tests/anti-patterns.test.ts explores the key alone)', async () => {
    for (const id of ['concurrent-redelivery', 'lease-expiry']) {
      const scenario = lessonById(id);
      const r = await runScenario(sim.db, { scenario, code: keyOnly, variant: 'key-only', seed: scenario.demo.seed, faults: scenario.demo.faults });
      expect(r.trace.some((ev) => ev.type === 'call' && ev.text.includes('this provider keeps no idempotency keys: the key was ignored')), replayHint(r)).toBe(true);
    }
    // Where the provider does keep keys, the key alone still leaves the consumer without a record
    // of its own: a redelivery after the work finished reaches the provider again, and only the
    // provider's memory of the key (24 hours at Stripe, none at many e-mail services) stops it.
    const crash = lessonById('crash-after-send');
    const e = await explore(sim.db, { scenario: crash, code: keyOnly, variant: 'key-only', runs: 100 });
    expect(e.violations).toBeGreaterThan(0);
    expect(Object.keys(e.byInvariant).filter((id) => e.byInvariant[id] > 0)).toEqual(['own-record']);
  }, 180_000);

  test('relay-concurrency: a transaction without FOR UPDATE publishes each row once here, and the lock check names it', async () => {
    const scenario = lessonById('relay-concurrency');
    const r = await runScenario(sim.db, { scenario, code: relayTxWithoutLock, variant: 'tx-without-lock', seed: scenario.demo.seed });
    expect(r.invariants.find((i) => i.id === 'each-row-once')?.held, replayHint(r)).toBe(true);
    const lock = r.invariants.find((i) => i.id === 'locks-what-it-publishes');
    expect(lock?.held, replayHint(r)).toBe(false);
    expect(lock?.detail).toMatch(/nothing locked the rows it published before or as it read them \(no FOR UPDATE on the read it published from;[^)]*\)\. Each row went out once in this run only because PGlite runs one transaction at a time/);
    // With the lock, and with FOR NO KEY UPDATE or without SKIP LOCKED, it holds.
    for (const lockClause of ['FOR UPDATE SKIP LOCKED', 'FOR NO KEY UPDATE SKIP LOCKED', 'FOR UPDATE']) {
      const code = relayTxWithoutLock.replace('ORDER BY id LIMIT 2', `ORDER BY id LIMIT 2 ${lockClause}`);
      const locked = await runScenario(sim.db, { scenario, code, variant: 'locked', seed: scenario.demo.seed });
      expect(locked.verdict, `${lockClause}: ${replayHint(locked)}`).toBe('held');
    }
  }, 120_000);
});

const DEEP_RUNS = Number(process.env.EXPLORE_RUNS_NEW ?? 150);

describe.each(NEW_IDS)('%s explored deeply', (id) => {
  test(`the solution holds across ${DEEP_RUNS} seeded fault plans`, async () => {
    const scenario = lessonById(id);
    const e = await explore(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', runs: DEEP_RUNS });
    const cx = e.counterexample;
    expect(e.violations, cx ? replayHint({ scenario: id, variant: 'solution', ...cx }) + ` — ${cx.invariant}: ${cx.detail}` : '').toBe(0);
    expect(e.errors).toBe(0);
  }, 120_000);
});

describe.each(NEW_IDS)('%s is deterministic', (id) => {
  test('the same seed and plan give the same trace hash; the CLI finds it by id', async () => {
    const scenario = lessonById(id);
    for (const variant of ['starter', 'solution'] as const) {
      const req = { scenario, code: scenario.variants[variant].code, variant, seed: 7 };
      const a = await runScenario(sim.db, req);
      const b = await runScenario(sim.db, req);
      expect(b.traceHash, replayHint(a)).toBe(a.traceHash);
      expect(b.invariants, replayHint(a)).toEqual(a.invariants);
    }
  });
});

describe('the replay-safety table as data', () => {
  test('every operation has a known bin, a label and a one-line cost; ids are unique', () => {
    const bins = new Set(REPLAY_BINS.map((b) => b.id));
    expect(REPLAY_OPERATIONS.length).toBe(8);
    expect(new Set(REPLAY_OPERATIONS.map((o) => o.id)).size).toBe(REPLAY_OPERATIONS.length);
    for (const op of REPLAY_OPERATIONS) {
      expect(bins.has(op.bin)).toBe(true);
      expect(op.label.length).toBeGreaterThan(5);
      expect(op.replayCost).not.toMatch(/\n/);
      // A half-right bin is another bin, and its note says why it is only half right.
      if (op.halfRight) {
        expect(bins.has(op.halfRight.bin)).toBe(true);
        expect(op.halfRight.bin).not.toBe(op.bin);
        expect(op.halfRight.note).toMatch(/^Half right: /);
      }
    }
    // The e-mail is taught both ways (a key to the provider in "Sent, but not marked done", our own
    // record everywhere): choosing the key is met with that, not a bare "wrong".
    expect(REPLAY_OPERATIONS.find((o) => o.id === 'email')?.halfRight?.bin).toBe('needs-key');
    expect(REPLAY_OPERATIONS.find((o) => o.id === 'charge')?.halfRight?.bin).toBe('needs-dedupe');
    expect(Object.fromEntries(REPLAY_OPERATIONS.map((o) => [o.id, o.bin]))).toEqual({
      lookup: 'safe',
      transform: 'safe',
      'set-field': 'safe',
      upsert: 'safe',
      charge: 'needs-key',
      email: 'needs-dedupe',
      counter: 'needs-dedupe',
      append: 'needs-dedupe',
    });
  });

  test('the scenario agrees with the bins: the starter breaks exactly the invariants of the unsafe operations', async () => {
    const scenario = lessonById('replay-safety');
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1 });
    const broken = new Set(r.invariants.filter((i) => !i.held).map((i) => i.id));
    const guardedBy: Record<string, string> = { charge: 'no-double-charge', email: 'at-most-one-email', counter: 'counter-correct', append: 'no-duplicate-row' };
    for (const op of REPLAY_OPERATIONS) {
      if (op.bin === 'safe') expect(guardedBy[op.id]).toBeUndefined();
      else expect(broken.has(guardedBy[op.id]!), `${op.id} should be shown breaking ${guardedBy[op.id]} (${replayHint(r)})`).toBe(true);
    }
    expect(broken.size).toBe(4);
  });
});
