/**
 * The metered transformation API (like APIVerve's POST endpoints): HMAC-SHA256 of an input, or an
 * HTML page rendered to a PDF. No idempotency keys: every item that succeeds bills one credit;
 * items beyond the rate window get 429 and items with no credit left get 402 (neither is billed);
 * a batch stops answering after its per-request item limit. A fault may have the rate limiter
 * refuse any item of a batch with 429 (`refuseItems`), as a burst from elsewhere on the account does.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { canonical } from '../../lib/op-key';
import { creditsLeft, emptyMeteredLedger, meteredEffects, meteredSettings, type MeteredWorldOptions } from './metered-account';
import { apiOf, defineProvider, malformed, type RequestContext } from './provider';

/**
 * One item for the metered transformation API: HMAC-SHA256 of `input` under `secret`, or an HTML
 * page rendered to a PDF. A transformation creates nothing; every item that succeeds bills one credit.
 */
export interface TransformRequest {
  kind: 'hmac' | 'html-to-pdf';
  input: string;
  /** The HMAC secret (for kind 'hmac'). */
  secret?: string;
}

/** What the transformation API answers for one item. */
export type TransformResult =
  | { ok: true; output: string; creditsLeft: number }
  | {
      ok: false;
      /** 429: the rate window is full. 402: out of credits. Either way the item was not billed. */
      code: 429 | 402;
      error: string;
      /** When trying again can succeed; null when no more credits are coming. */
      retryAfterMs: number | null;
    };

/** `env.transform`: the metered transformation API, no idempotency key, one credit per successful item. */
export interface TransformApi {
  /** Transform one item. */
  call(request: TransformRequest): Promise<TransformResult>;
  /**
   * Transform several items in one request. Results come back in the order sent, one per item;
   * items the provider did not reach before its deadline get no result (the array is shorter).
   */
  batch(items: TransformRequest[]): Promise<TransformResult[]>;
}

/** The output of a transformation: real HMAC-SHA256, or a stand-in PDF named by the page's hash. */
export function transformOutput(req: TransformRequest): string {
  if (req.kind === 'hmac') return bytesToHex(hmac(sha256, utf8ToBytes(req.secret ?? ''), utf8ToBytes(req.input)));
  return `pdf_${bytesToHex(sha256(utf8ToBytes(req.input))).slice(0, 12)}`;
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

export const transform = defineProvider({
  name: 'transform',
  api: apiOf<TransformApi>(),
  calls: [
    {
      kind: 'transform.call',
      method: 'call',
      takesOptions: false,
      latencyMs: 150,
      label: (r) => {
        const request = r as Partial<TransformRequest> | undefined;
        return `${request?.kind} of ${JSON.stringify(String(request?.input ?? '').slice(0, 24))}`;
      },
    },
    { kind: 'transform.batch', method: 'batch', takesOptions: false, latencyMs: 400, label: (items) => `batch of ${Array.isArray(items) ? items.length : '?'} items` },
  ],
  emptyLedger: emptyMeteredLedger,
  effects: meteredEffects('transform'),
  create(ledger, options: MeteredWorldOptions) {
    const settings = meteredSettings(options);
    /** Items counted against the current rate window, and which window that is. */
    let windowIndex = -1;
    let windowItems = 0;

    const item = (req: TransformRequest, { nowMs, step, by }: RequestContext): TransformResult => {
      const id = canonical(req);
      const { items: limit, windowMs } = settings.rateLimit;
      const w = Math.floor(nowMs / windowMs);
      if (w !== windowIndex) {
        windowIndex = w;
        windowItems = 0;
      }
      if (windowItems >= limit) {
        ledger.itemRefusals.push({ item: id, code: 429, by, atMs: nowMs, step });
        return { ok: false, code: 429, error: 'rate window full', retryAfterMs: (w + 1) * windowMs - nowMs };
      }
      windowItems++;
      if (creditsLeft(settings, ledger, nowMs) <= 0) {
        const next = settings.topUps.filter((t) => t.atMs > nowMs).sort((a, b) => a.atMs - b.atMs)[0];
        ledger.itemRefusals.push({ item: id, code: 402, by, atMs: nowMs, step });
        return { ok: false, code: 402, error: 'out of credits', retryAfterMs: next ? next.atMs - nowMs : null };
      }
      const output = transformOutput(req);
      ledger.credits.push({ kind: 'transform', item: id, output, by, atMs: nowMs, step });
      return { ok: true, output, creditsLeft: creditsLeft(settings, ledger, nowMs) };
    };

    /** An item the rate limiter refuses whatever its window (a fault): 429, unbilled, try again in the next window. */
    const refused = (req: TransformRequest, { nowMs, step, by }: RequestContext): TransformResult => {
      const { windowMs } = settings.rateLimit;
      ledger.itemRefusals.push({ item: canonical(req), code: 429, by, atMs: nowMs, step });
      return { ok: false, code: 429, error: 'rate limited', retryAfterMs: (Math.floor(nowMs / windowMs) + 1) * windowMs - nowMs };
    };

    return {
      apply(kind, request, _options, at) {
        if (kind === 'transform.call') {
          const bad = malformedTransform(request);
          if (bad) return malformed(bad);
          const r = item(request as TransformRequest, at);
          return { response: r, summary: r.ok ? `transformed (1 credit, ${r.creditsLeft} left)` : `refused ${r.code}: ${r.error} (not billed)`, replySummary: r.ok ? `${shortOutput(r.output)}` : `code ${r.code}` };
        }
        const items = Array.isArray(request) ? request : null;
        const bad = items ? items.map(malformedTransform).find((e) => e) : new TypeError('transform.batch needs an array of { kind, input } items');
        if (!items || bad) return malformed(bad!);
        const reached = items.slice(0, settings.maxItemsPerRequest);
        const results = reached.map((it, i) => (at.refuseItems?.includes(i) ? refused(it as TransformRequest, at) : item(it as TransformRequest, at)));
        for (const it of items.slice(reached.length)) ledger.itemRefusals.push({ item: canonical(it), code: 'no-response', by: at.by, atMs: at.nowMs, step: at.step });
        const billed = results.filter((r) => r.ok).length;
        const tally = (code: number) => results.filter((r) => !r.ok && r.code === code).length;
        const parts = [`${billed} transformed (${billed} credit${billed === 1 ? '' : 's'})`];
        if (tally(429)) parts.push(`${tally(429)} × 429`);
        if (tally(402)) parts.push(`${tally(402)} × 402`);
        if (items.length > reached.length) parts.push(`${items.length - reached.length} never answered`);
        return { response: results, summary: parts.join(', '), replySummary: `${results.length} result${results.length === 1 ? '' : 's'} for ${items.length} item${items.length === 1 ? '' : 's'}` };
      },
    };
  },
});
