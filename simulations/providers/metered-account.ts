/**
 * The metered API's account, which its transformation and lookup endpoints share: credits on the
 * account, renewals at set times, a fixed rate window and a per-request item limit. Credits spent
 * are the ledger's `credits`, so the balance is always what the ledger says was billed.
 */

/** The metered API's account options. */
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

/** The world option both metered endpoints read. */
export interface MeteredWorldOptions {
  /** The metered transformation/lookup API's account (generous defaults when left out). */
  metered?: MeteredOptions;
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

/** The metered endpoints' part of the ledger. */
export interface MeteredLedger {
  /** Credits the metered API billed, one per successful item. */
  credits: CreditSpent[];
  /** Items it answered with 429 or 402, or not at all. */
  itemRefusals: ItemRefusal[];
}

export const emptyMeteredLedger = (): MeteredLedger => ({ credits: [], itemRefusals: [] });

/** The account's settings with their defaults filled in. */
export function meteredSettings(options: MeteredWorldOptions): Required<MeteredOptions> {
  return {
    credits: 1_000,
    topUps: [],
    rateLimit: { items: 1_000, windowMs: 10_000 },
    maxItemsPerRequest: 1_000,
    answerPeriodMs: 20_000,
    ...options.metered,
  };
}

/** Credits on the account at `nowMs`: the start, plus renewals so far, minus what was billed. */
export function creditsLeft(settings: Required<MeteredOptions>, ledger: MeteredLedger, nowMs: number): number {
  const added = settings.topUps.filter((t) => t.atMs <= nowMs).reduce((n, t) => n + t.credits, 0);
  return settings.credits + added - ledger.credits.length;
}

/** Effect counts of one metered endpoint: the credits it billed (`credits:transform`). */
export function meteredEffects(kind: CreditSpent['kind']) {
  return (ledger: MeteredLedger, bump: (key: string) => void): void => {
    for (const c of ledger.credits) if (c.kind === kind) bump(`credits:${kind}`);
  };
}
