/**
 * Simulated side-effect providers and the ledger of what they really did.
 *
 * e-mail: sends one message per new request; with an idempotency key it has seen within its
 * retention window (24 h, as the payment provider's), it sends nothing and answers with the original
 * e-mail's id; an older key is forgotten, so a repeat days later sends again. payments: the contract in lib/idempotency-contract.ts
 * (same key → original charge; same key, other parameters → idempotency_error; keys forgotten
 * after the retention window). metered API (transform, lookup): no keys at all; every successful
 * item bills one credit; items beyond the rate window get 429, items with no credit left get 402
 * (neither is billed), and a batch stops answering after its per-request item limit. Lookup answers
 * move with simulated time. The ledger is the ground truth the invariants check.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { IdempotencyKeyStore, DEFAULT_RETENTION_HOURS } from '../../lib/idempotency-contract';
import { canonical } from '../../lib/op-key';
import type { CallKind, ChargeRequest, ChargeResult, EmailRequest, EmailResult, LookupRequest, LookupResult, TransformRequest, TransformResult } from '../engine/types';

/** The metered API's account: credits, their renewals, the rate window and the batch deadline. */
export interface MeteredOptions {
  /** Credits on the account when the run starts. */
  credits: number;
  /** Credits added at a simulated time (ms since the start). */
  topUps?: { atMs: number; credits: number }[];
  /** At most `items` items (billed or refused for credits) per fixed window of `windowMs`. */
  rateLimit?: { items: number; windowMs: number };
  /** Items a batch request answers before its deadline; the rest get no result. */
  maxItemsPerRequest?: number;
  /** How long a lookup answer holds before the data moves on. */
  answerPeriodMs?: number;
}

/** Provider behaviour of a world. */
export interface ProviderOptions {
  /** Usual time from request to response, per call kind. */
  latencyMs?: Partial<Record<CallKind, number>>;
  /** How long a caller waits for a response before it gives up with a timeout. */
  timeoutMs?: number;
  /** Whether the e-mail provider honours idempotency keys. */
  emailHonoursKeys?: boolean;
  /** How long the payment provider remembers a key. */
  paymentRetentionHours?: number;
  /** How long the e-mail provider remembers a key (no provider remembers one forever). */
  emailRetentionHours?: number;
  /** The metered transformation/lookup API's account (generous defaults when left out). */
  metered?: MeteredOptions;
}

/** The verdicts a deliverability lookup cycles through as its data moves. */
export const LOOKUP_VERDICTS: readonly LookupResult['verdict'][] = ['deliverable', 'risky', 'undeliverable'];

/** What the lookup answers for any value at `atMs`: the data moves once every `periodMs`. */
export function lookupVerdictAt(atMs: number, periodMs: number): LookupResult['verdict'] {
  return LOOKUP_VERDICTS[Math.floor(atMs / periodMs) % LOOKUP_VERDICTS.length]!;
}

/** The output of a transformation: real HMAC-SHA256, or a stand-in PDF named by the page's hash. */
export function transformOutput(req: TransformRequest): string {
  if (req.kind === 'hmac') return bytesToHex(hmac(sha256, utf8ToBytes(req.secret ?? ''), utf8ToBytes(req.input)));
  return `pdf_${bytesToHex(sha256(utf8ToBytes(req.input))).slice(0, 12)}`;
}

/** An e-mail the provider really sent. */
export interface SentEmail {
  emailId: string;
  to: string;
  orderId: number;
  key?: string;
  /** The request's template, e.g. 'reminder' (receipts send none). */
  template?: string;
  by: string;
  atMs: number;
  step: number;
}

/** One credit billed by the metered API: a successful lookup or transformed item. */
export interface CreditSpent {
  kind: 'transform' | 'lookup';
  /** The item's identity: canonical JSON of the request, so the same input is the same item. */
  item: string;
  /** What it answered (the HMAC, the PDF's name, the verdict). */
  output: string;
  by: string;
  atMs: number;
  step: number;
}

/** An item the metered API refused (not billed) or never answered. */
export interface ItemRefusal {
  item: string;
  code: 429 | 402 | 'no-response';
  by: string;
  atMs: number;
  step: number;
}

/** A charge the provider really made. */
export interface Charge {
  chargeId: string;
  orderId: number;
  amountCents: number;
  customer: string;
  key?: string;
  by: string;
  atMs: number;
  step: number;
}

/** Everything the outside world saw. */
export interface Ledger {
  emails: SentEmail[];
  charges: Charge[];
  /** Requests answered from a remembered key, by call kind. */
  replays: { kind: CallKind; key: string; by: string; step: number }[];
  /** Requests refused for reusing a key with other parameters. */
  refusals: { kind: CallKind; key: string; by: string; step: number }[];
  published: { id: string; topic: string; body: unknown; by: string; step: number }[];
  /** Credits the metered API billed, one per successful item. */
  credits: CreditSpent[];
  /** Items it answered with 429 or 402, or not at all. */
  itemRefusals: ItemRefusal[];
}

/** An empty ledger. */
export function emptyLedger(): Ledger {
  return { emails: [], charges: [], replays: [], refusals: [], published: [], credits: [], itemRefusals: [] };
}

/** A call that got no answer before its deadline. Whether the provider acted is unknown to the caller. */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(kind: CallKind, timeoutMs: number) {
    super(`${kind} timed out after ${timeoutMs / 1000} s; the request may or may not have been applied`);
    this.name = 'TimeoutError';
  }
}

/** The payment provider's refusal of a key reused with different parameters. */
export class IdempotencyError extends Error {
  readonly type = 'idempotency_error';
  constructor(message: string) {
    super(message);
    this.name = 'IdempotencyError';
  }
}

interface Outcome {
  response?: unknown;
  error?: Error;
  /** What the provider did, for the caller's call line. */
  summary: string;
  /** What the reply says. */
  replySummary: string;
}

export class Providers {
  readonly ledger: Ledger = emptyLedger();
  readonly timeoutMs: number;
  private readonly latency: Record<CallKind, number>;
  /** The e-mail provider's keys: what each first send answered, and when. */
  private readonly emailKeys = new Map<string, { result: EmailResult; atMs: number }>();
  private readonly emailRetentionMs: number;
  private readonly paymentKeys: IdempotencyKeyStore<ChargeResult>;
  private readonly emailHonoursKeys: boolean;
  private readonly metered: Required<MeteredOptions>;
  /** Items counted against the current rate window, and which window that is. */
  private windowIndex = -1;
  private windowItems = 0;

  constructor(options: ProviderOptions) {
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.latency = { 'email.send': 200, 'payments.charge': 300, 'transform.call': 150, 'transform.batch': 400, 'lookup.check': 120, ...options.latencyMs };
    this.metered = {
      credits: 1_000,
      topUps: [],
      rateLimit: { items: 1_000, windowMs: 10_000 },
      maxItemsPerRequest: 1_000,
      answerPeriodMs: 20_000,
      ...options.metered,
    };
    this.emailHonoursKeys = options.emailHonoursKeys ?? true;
    this.paymentKeys = new IdempotencyKeyStore(options.paymentRetentionHours ?? DEFAULT_RETENTION_HOURS);
    this.emailRetentionMs = (options.emailRetentionHours ?? DEFAULT_RETENTION_HOURS) * 3_600_000;
  }

  latencyMs(kind: CallKind): number {
    return this.latency[kind];
  }

  /** The provider receives a request at `nowMs` and acts on it. */
  apply(kind: CallKind, request: unknown, options: { idempotencyKey?: string } | undefined, nowMs: number, step: number, by: string): Outcome {
    const key = options?.idempotencyKey;
    if (kind === 'email.send') return this.sendEmail(request as EmailRequest, key, nowMs, step, by);
    if (kind === 'payments.charge') return this.charge(request as ChargeRequest, key, nowMs, step, by);
    if (kind === 'lookup.check') return this.lookup(request as LookupRequest, nowMs, step, by);
    if (kind === 'transform.call') {
      const bad = malformedTransform(request);
      if (bad) return { error: bad, summary: 'rejected: malformed request', replySummary: bad.message };
      const r = this.transformItem(request as TransformRequest, nowMs, step, by);
      return { response: r, summary: r.ok ? `transformed (1 credit, ${r.creditsLeft} left)` : `refused ${r.code}: ${r.error} (not billed)`, replySummary: r.ok ? `${shortOutput(r.output)}` : `code ${r.code}` };
    }
    return this.batch(request, nowMs, step, by);
  }

  /** Credits on the account at `nowMs`: the start, plus renewals so far, minus what was billed. */
  creditsLeft(nowMs: number): number {
    const added = this.metered.topUps.filter((t) => t.atMs <= nowMs).reduce((n, t) => n + t.credits, 0);
    return this.metered.credits + added - this.ledger.credits.length;
  }

  private transformItem(req: TransformRequest, nowMs: number, step: number, by: string): TransformResult {
    const item = canonical(req);
    const { items: limit, windowMs } = this.metered.rateLimit;
    const w = Math.floor(nowMs / windowMs);
    if (w !== this.windowIndex) {
      this.windowIndex = w;
      this.windowItems = 0;
    }
    if (this.windowItems >= limit) {
      this.ledger.itemRefusals.push({ item, code: 429, by, atMs: nowMs, step });
      return { ok: false, code: 429, error: 'rate window full', retryAfterMs: (w + 1) * windowMs - nowMs };
    }
    this.windowItems++;
    if (this.creditsLeft(nowMs) <= 0) {
      const next = this.metered.topUps.filter((t) => t.atMs > nowMs).sort((a, b) => a.atMs - b.atMs)[0];
      this.ledger.itemRefusals.push({ item, code: 402, by, atMs: nowMs, step });
      return { ok: false, code: 402, error: 'out of credits', retryAfterMs: next ? next.atMs - nowMs : null };
    }
    const output = transformOutput(req);
    this.ledger.credits.push({ kind: 'transform', item, output, by, atMs: nowMs, step });
    return { ok: true, output, creditsLeft: this.creditsLeft(nowMs) };
  }

  private batch(request: unknown, nowMs: number, step: number, by: string): Outcome {
    const items = Array.isArray(request) ? request : null;
    const bad = items ? items.map(malformedTransform).find((e) => e) : new TypeError('transform.batch needs an array of { kind, input } items');
    if (!items || bad) return { error: bad!, summary: 'rejected: malformed request', replySummary: bad!.message };
    const reached = items.slice(0, this.metered.maxItemsPerRequest);
    const results = reached.map((it) => this.transformItem(it as TransformRequest, nowMs, step, by));
    for (const it of items.slice(reached.length)) this.ledger.itemRefusals.push({ item: canonical(it), code: 'no-response', by, atMs: nowMs, step });
    const billed = results.filter((r) => r.ok).length;
    const tally = (code: number) => results.filter((r) => !r.ok && r.code === code).length;
    const parts = [`${billed} transformed (${billed} credit${billed === 1 ? '' : 's'})`];
    if (tally(429)) parts.push(`${tally(429)} × 429`);
    if (tally(402)) parts.push(`${tally(402)} × 402`);
    if (items.length > reached.length) parts.push(`${items.length - reached.length} never answered`);
    return { response: results, summary: parts.join(', '), replySummary: `${results.length} result${results.length === 1 ? '' : 's'} for ${items.length} item${items.length === 1 ? '' : 's'}` };
  }

  private lookup(req: LookupRequest, nowMs: number, step: number, by: string): Outcome {
    if (!req || typeof req.value !== 'string') {
      const error = new TypeError('lookup.check needs { kind: "email-deliverability", value: string }');
      return { error, summary: 'rejected: malformed request', replySummary: error.message };
    }
    if (this.creditsLeft(nowMs) <= 0) {
      const error = Object.assign(new Error('out of credits (402)'), { code: 402 });
      return { error, summary: 'refused 402: out of credits', replySummary: 'code 402' };
    }
    const verdict = lookupVerdictAt(nowMs, this.metered.answerPeriodMs);
    this.ledger.credits.push({ kind: 'lookup', item: canonical({ kind: req.kind, value: req.value }), output: verdict, by, atMs: nowMs, step });
    const response: LookupResult = { value: req.value, verdict, checkedAtMs: nowMs };
    return { response, summary: `${req.value} looks ${verdict} now (1 credit)`, replySummary: verdict };
  }

  private sendEmail(req: EmailRequest, key: string | undefined, nowMs: number, step: number, by: string): Outcome {
    if (!req || typeof req.to !== 'string' || typeof req.orderId !== 'number') {
      const error = new TypeError('email.send needs { to: string, orderId: number }');
      return { error, summary: 'rejected: malformed request', replySummary: error.message };
    }
    let forgotten = '';
    if (key && this.emailHonoursKeys) {
      const entry = this.emailKeys.get(key);
      const seen = entry && nowMs - entry.atMs < this.emailRetentionMs ? entry.result : undefined;
      if (entry && !seen) forgotten = forgottenKey(nowMs - entry.atMs, this.emailRetentionMs / 3_600_000);
      if (seen) {
        this.ledger.replays.push({ kind: 'email.send', key, by, step });
        const response: EmailResult = { ...seen, replayed: true };
        return { response, summary: `key seen before: nothing sent, original ${seen.emailId} returned`, replySummary: `${seen.emailId} (replayed, no new e-mail)` };
      }
    }
    const emailId = `em_${this.ledger.emails.length + 1}`;
    this.ledger.emails.push({ emailId, to: req.to, orderId: req.orderId, key, template: typeof req.template === 'string' ? req.template : undefined, by, atMs: nowMs, step });
    const response: EmailResult = { emailId, replayed: false };
    if (key && this.emailHonoursKeys) this.emailKeys.set(key, { result: response, atMs: nowMs });
    const template = typeof req.template === 'string' ? req.template : undefined;
    const count = this.ledger.emails.filter((e) => e.orderId === req.orderId && e.template === template).length;
    return {
      response,
      summary: `e-mail ${emailId} sent${count > 1 ? ` — ${template ? `${template} e-mail` : 'receipt'} #${count} for order ${req.orderId}` : ''}${forgotten}${key && !this.emailHonoursKeys ? ' (this provider keeps no idempotency keys: the key was ignored)' : ''}`,
      replySummary: `sent ${emailId}`,
    };
  }

  private charge(req: ChargeRequest, key: string | undefined, nowMs: number, step: number, by: string): Outcome {
    if (!req || typeof req.orderId !== 'number' || typeof req.amountCents !== 'number') {
      const error = new TypeError('payments.charge needs { orderId: number, amountCents: number, customer: string }');
      return { error, summary: 'rejected: malformed request', replySummary: error.message };
    }
    const params = { orderId: req.orderId, amountCents: req.amountCents, customer: req.customer ?? null };
    let forgotten = '';
    if (key) {
      const decision = this.paymentKeys.decide(key, params, nowMs);
      if (decision.kind === 'new' && decision.forgottenSince !== undefined) forgotten = forgottenKey(nowMs - decision.forgottenSince, this.paymentKeys.retentionHours);
      if (decision.kind === 'replay') {
        this.ledger.replays.push({ kind: 'payments.charge', key, by, step });
        return {
          response: { ...decision.result, replayed: true },
          summary: `key seen before: no new charge, original ${decision.result.chargeId} returned`,
          replySummary: `${decision.result.chargeId} (replayed, no new charge)`,
        };
      }
      if (decision.kind === 'mismatch') {
        this.ledger.refusals.push({ kind: 'payments.charge', key, by, step });
        const error = new IdempotencyError(decision.message);
        return { error, summary: 'refused: key reused with different parameters', replySummary: 'idempotency_error' };
      }
    }
    const chargeId = `ch_${this.ledger.charges.length + 1}`;
    this.ledger.charges.push({ chargeId, orderId: req.orderId, amountCents: req.amountCents, customer: req.customer, key, by, atMs: nowMs, step });
    const result: ChargeResult = { chargeId, amountCents: req.amountCents, replayed: false };
    if (key) this.paymentKeys.remember(key, params, result, nowMs);
    const count = this.ledger.charges.filter((c) => c.orderId === req.orderId).length;
    return {
      response: result,
      summary: `charge ${chargeId} created${count > 1 ? ` — charge #${count} for order ${req.orderId}` : ''}${forgotten}`,
      replySummary: `charged ${chargeId}`,
    };
  }
}

/** The narration's note on a key the provider had forgotten: when it was first used, and how long keys are kept. */
function forgottenKey(agoMs: number, retentionHours: number): string {
  const hours = Math.floor(agoMs / 3_600_000);
  return ` (this key was first used ${hours} h ago; the provider keeps keys ${retentionHours} h, so it had forgotten it)`;
}

function malformedTransform(it: unknown): TypeError | undefined {
  const r = it as TransformRequest | null;
  if (!r || (r.kind !== 'hmac' && r.kind !== 'html-to-pdf') || typeof r.input !== 'string') {
    return new TypeError('a transform item needs { kind: "hmac" | "html-to-pdf", input: string, secret?: string }');
  }
  return undefined;
}

function shortOutput(output: string): string {
  return output.length > 16 ? `${output.slice(0, 12)}…` : output;
}
