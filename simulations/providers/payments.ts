/**
 * The payment provider, keeping the idempotency-key contract of lib/idempotency-contract.ts: the
 * same key returns the original charge, the same key with other parameters is refused
 * (`idempotency_error`), and keys are forgotten after the retention window.
 */
import { DEFAULT_RETENTION_HOURS, IdempotencyKeyStore } from '../../lib/idempotency-contract';
import { apiOf, defineProvider, forgottenKey, malformed, type CallOptions } from './provider';

/** A charge request to the payment provider. */
export interface ChargeRequest {
  orderId: number;
  amountCents: number;
  customer: string;
}

/** What the payment provider answers. */
export interface ChargeResult {
  chargeId: string;
  amountCents: number;
  replayed: boolean;
}

/** `env.payments`. */
export interface PaymentsApi {
  charge(request: ChargeRequest, options?: CallOptions): Promise<ChargeResult>;
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

/** The payment provider's world options. */
export interface PaymentsOptions {
  /** How long the payment provider remembers a key. */
  paymentRetentionHours?: number;
}

/** The payment provider's refusal of a key reused with different parameters. */
export class IdempotencyError extends Error {
  readonly type = 'idempotency_error';
  constructor(message: string) {
    super(message);
    this.name = 'IdempotencyError';
  }
}

function formatCents(cents: unknown): string {
  return typeof cents === 'number' ? `$${(cents / 100).toFixed(2)}` : String(cents);
}

export const payments = defineProvider({
  name: 'payments',
  api: apiOf<PaymentsApi>(),
  calls: [
    {
      kind: 'payments.charge',
      method: 'charge',
      takesOptions: true,
      latencyMs: 300,
      label: (r) => {
        const request = r as Partial<ChargeRequest> | undefined;
        return `charge order ${request?.orderId} ${formatCents(request?.amountCents)}`;
      },
    },
  ],
  emptyLedger: () => ({ charges: [] as Charge[] }),
  effects(ledger, bump) {
    for (const c of ledger.charges) bump(`charges:order-${c.orderId}`);
  },
  create(ledger, options: PaymentsOptions) {
    const keys = new IdempotencyKeyStore<ChargeResult>(options.paymentRetentionHours ?? DEFAULT_RETENTION_HOURS);
    return {
      apply(_kind, request, callOptions, { nowMs, step, by }) {
        const req = request as ChargeRequest;
        const key = callOptions?.idempotencyKey;
        if (!req || typeof req.orderId !== 'number' || typeof req.amountCents !== 'number') {
          return malformed(new TypeError('payments.charge needs { orderId: number, amountCents: number, customer: string }'));
        }
        const params = { orderId: req.orderId, amountCents: req.amountCents, customer: req.customer ?? null };
        let forgotten = '';
        if (key) {
          const decision = keys.decide(key, params, nowMs);
          if (decision.kind === 'new' && decision.forgottenSince !== undefined) forgotten = forgottenKey(nowMs - decision.forgottenSince, keys.retentionHours);
          if (decision.kind === 'replay') {
            ledger.replays.push({ kind: 'payments.charge', key, by, step });
            return {
              response: { ...decision.result, replayed: true },
              summary: `key seen before: no new charge, original ${decision.result.chargeId} returned`,
              replySummary: `${decision.result.chargeId} (replayed, no new charge)`,
            };
          }
          if (decision.kind === 'mismatch') {
            ledger.refusals.push({ kind: 'payments.charge', key, by, step });
            return { error: new IdempotencyError(decision.message), summary: 'refused: key reused with different parameters', replySummary: 'idempotency_error' };
          }
        }
        const chargeId = `ch_${ledger.charges.length + 1}`;
        ledger.charges.push({ chargeId, orderId: req.orderId, amountCents: req.amountCents, customer: req.customer, key, by, atMs: nowMs, step });
        const result: ChargeResult = { chargeId, amountCents: req.amountCents, replayed: false };
        if (key) keys.remember(key, params, result, nowMs);
        const count = ledger.charges.filter((c) => c.orderId === req.orderId).length;
        return {
          response: result,
          summary: `charge ${chargeId} created${count > 1 ? ` — charge #${count} for order ${req.orderId}` : ''}${forgotten}`,
          replySummary: `charged ${chargeId}`,
        };
      },
    };
  },
});
