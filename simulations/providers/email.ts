/**
 * The e-mail provider. It sends one message per new request. With an idempotency key it has seen
 * within its retention window (24 h by default, as the payment provider's) it sends nothing and
 * answers with the original e-mail's id; an older key is forgotten, so a repeat days later sends
 * again. A world may give it no keys at all (`emailHonoursKeys: false`), as many providers do.
 */
import { DEFAULT_RETENTION_HOURS } from '../../lib/idempotency-contract';
import { apiOf, defineProvider, forgottenKey, malformed, type CallOptions } from './provider';

/** The receipt e-mail a worker asks the e-mail provider to send. */
export interface EmailRequest {
  to: string;
  orderId: number;
  template?: string;
}

/** What the e-mail provider answers. */
export interface EmailResult {
  emailId: string;
  /** True when the provider recognised the idempotency key and sent nothing new. */
  replayed: boolean;
}

/** `env.email`. */
export interface EmailApi {
  send(request: EmailRequest, options?: CallOptions): Promise<EmailResult>;
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

/** The e-mail provider's world options. */
export interface EmailOptions {
  /** Whether the e-mail provider honours idempotency keys (default true). */
  emailHonoursKeys?: boolean;
  /** How long the e-mail provider remembers a key (no provider remembers one forever). */
  emailRetentionHours?: number;
}

export const email = defineProvider({
  name: 'email',
  api: apiOf<EmailApi>(),
  calls: [
    {
      kind: 'email.send',
      method: 'send',
      takesOptions: true,
      latencyMs: 200,
      label: (r) => {
        const request = r as Partial<EmailRequest> | undefined;
        return `send ${typeof request?.template === 'string' ? `${request.template} e-mail` : 'receipt'} for order ${request?.orderId} to ${request?.to}`;
      },
    },
  ],
  emptyLedger: () => ({ emails: [] as SentEmail[] }),
  effects(ledger, bump) {
    for (const e of ledger.emails) bump(`${e.template ? `${e.template}-emails` : 'receipts'}:order-${e.orderId}`);
  },
  create(ledger, options: EmailOptions) {
    const honoursKeys = options.emailHonoursKeys ?? true;
    const retentionMs = (options.emailRetentionHours ?? DEFAULT_RETENTION_HOURS) * 3_600_000;
    /** What each first send with a key answered, and when. */
    const keys = new Map<string, { result: EmailResult; atMs: number }>();
    return {
      apply(_kind, request, options, { nowMs, step, by }) {
        const req = request as EmailRequest;
        const key = options?.idempotencyKey;
        if (!req || typeof req.to !== 'string' || typeof req.orderId !== 'number') {
          return malformed(new TypeError('email.send needs { to: string, orderId: number }'));
        }
        let forgotten = '';
        if (key && honoursKeys) {
          const entry = keys.get(key);
          const seen = entry && nowMs - entry.atMs < retentionMs ? entry.result : undefined;
          if (entry && !seen) forgotten = forgottenKey(nowMs - entry.atMs, retentionMs / 3_600_000);
          if (seen) {
            ledger.replays.push({ kind: 'email.send', key, by, step });
            const response: EmailResult = { ...seen, replayed: true };
            return { response, summary: `key seen before: nothing sent, original ${seen.emailId} returned`, replySummary: `${seen.emailId} (replayed, no new e-mail)` };
          }
        }
        const emailId = `em_${ledger.emails.length + 1}`;
        const template = typeof req.template === 'string' ? req.template : undefined;
        ledger.emails.push({ emailId, to: req.to, orderId: req.orderId, key, template, by, atMs: nowMs, step });
        const response: EmailResult = { emailId, replayed: false };
        if (key && honoursKeys) keys.set(key, { result: response, atMs: nowMs });
        const count = ledger.emails.filter((e) => e.orderId === req.orderId && e.template === template).length;
        return {
          response,
          summary: `e-mail ${emailId} sent${count > 1 ? ` — ${template ? `${template} e-mail` : 'receipt'} #${count} for order ${req.orderId}` : ''}${forgotten}${key && !honoursKeys ? ' (this provider keeps no idempotency keys: the key was ignored)' : ''}`,
          replySummary: `sent ${emailId}`,
        };
      },
    };
  },
});
