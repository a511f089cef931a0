/**
 * Simulated side-effect providers and the ledger of what they really did.
 *
 * e-mail: sends one message per new request; with an idempotency key it has seen, it sends nothing
 * and answers with the original e-mail's id. payments: the contract in lib/idempotency-contract.ts
 * (same key → original charge; same key, other parameters → idempotency_error; keys forgotten
 * after the retention window). The ledger is the ground truth the invariants check.
 */
import { IdempotencyKeyStore, DEFAULT_RETENTION_HOURS } from '../lib/idempotency-contract';
import type { CallKind, ChargeRequest, ChargeResult, EmailRequest, EmailResult } from './types';

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
}

/** An e-mail the provider really sent. */
export interface SentEmail {
  emailId: string;
  to: string;
  orderId: number;
  key?: string;
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
}

/** A call that got no answer before its deadline. Whether the provider acted is unknown to the caller. */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(kind: CallKind, timeoutMs: number) {
    super(`${kind} timed out after ${timeoutMs} ms; the request may or may not have been applied`);
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
  readonly ledger: Ledger = { emails: [], charges: [], replays: [], refusals: [], published: [] };
  readonly timeoutMs: number;
  private readonly latency: Record<CallKind, number>;
  private readonly emailKeys = new Map<string, EmailResult>();
  private readonly paymentKeys: IdempotencyKeyStore<ChargeResult>;
  private readonly emailHonoursKeys: boolean;

  constructor(options: ProviderOptions) {
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.latency = { 'email.send': 200, 'payments.charge': 300, ...options.latencyMs };
    this.emailHonoursKeys = options.emailHonoursKeys ?? true;
    this.paymentKeys = new IdempotencyKeyStore(options.paymentRetentionHours ?? DEFAULT_RETENTION_HOURS);
  }

  latencyMs(kind: CallKind): number {
    return this.latency[kind];
  }

  /** The provider receives a request at `nowMs` and acts on it. */
  apply(kind: CallKind, request: unknown, options: { idempotencyKey?: string } | undefined, nowMs: number, step: number, by: string): Outcome {
    const key = options?.idempotencyKey;
    if (kind === 'email.send') return this.sendEmail(request as EmailRequest, key, nowMs, step, by);
    return this.charge(request as ChargeRequest, key, nowMs, step, by);
  }

  private sendEmail(req: EmailRequest, key: string | undefined, nowMs: number, step: number, by: string): Outcome {
    if (!req || typeof req.to !== 'string' || typeof req.orderId !== 'number') {
      const error = new TypeError('email.send needs { to: string, orderId: number }');
      return { error, summary: 'rejected: malformed request', replySummary: error.message };
    }
    if (key && this.emailHonoursKeys) {
      const seen = this.emailKeys.get(key);
      if (seen) {
        this.ledger.replays.push({ kind: 'email.send', key, by, step });
        const response: EmailResult = { ...seen, replayed: true };
        return { response, summary: `key seen before: nothing sent, original ${seen.emailId} returned`, replySummary: `${seen.emailId} (replayed, no new e-mail)` };
      }
    }
    const emailId = `em_${this.ledger.emails.length + 1}`;
    this.ledger.emails.push({ emailId, to: req.to, orderId: req.orderId, key, by, atMs: nowMs, step });
    const response: EmailResult = { emailId, replayed: false };
    if (key && this.emailHonoursKeys) this.emailKeys.set(key, response);
    const count = this.ledger.emails.filter((e) => e.orderId === req.orderId).length;
    return {
      response,
      summary: `e-mail ${emailId} sent${count > 1 ? ` — receipt #${count} for order ${req.orderId}` : ''}`,
      replySummary: `sent ${emailId}`,
    };
  }

  private charge(req: ChargeRequest, key: string | undefined, nowMs: number, step: number, by: string): Outcome {
    if (!req || typeof req.orderId !== 'number' || typeof req.amountCents !== 'number') {
      const error = new TypeError('payments.charge needs { orderId: number, amountCents: number, customer: string }');
      return { error, summary: 'rejected: malformed request', replySummary: error.message };
    }
    const params = { orderId: req.orderId, amountCents: req.amountCents, customer: req.customer ?? null };
    if (key) {
      const decision = this.paymentKeys.decide(key, params, nowMs);
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
      summary: `charge ${chargeId} created${count > 1 ? ` — charge #${count} for order ${req.orderId}` : ''}`,
      replySummary: `charged ${chargeId}`,
    };
  }
}
