/**
 * The metered validation lookup: one credit per call, no idempotency key, and an answer that moves
 * with simulated time (the data behind it changes every `answerPeriodMs`), so a replayed lookup
 * can hear something else than the first.
 */
import { canonical } from '../../lib/op-key';
import { creditsLeft, emptyMeteredLedger, meteredEffects, meteredSettings, type MeteredWorldOptions } from './metered-account';
import { apiOf, defineProvider, malformed } from './provider';

/** A validation lookup (billed one credit). Its answer may move over time. */
export interface LookupRequest {
  kind: 'email-deliverability';
  value: string;
}

/** What the lookup answered, and when. */
export interface LookupResult {
  value: string;
  verdict: 'deliverable' | 'risky' | 'undeliverable';
  /** Simulated ms since the run started, when the provider looked. */
  checkedAtMs: number;
}

/** `env.lookup`: a metered validation lookup, one credit per call. */
export interface LookupApi {
  check(request: LookupRequest): Promise<LookupResult>;
}

/** The verdicts a deliverability lookup cycles through as its data moves. */
export const LOOKUP_VERDICTS: readonly LookupResult['verdict'][] = ['deliverable', 'risky', 'undeliverable'];

/** What the lookup answers for any value at `atMs`: the data moves once every `periodMs`. */
export function lookupVerdictAt(atMs: number, periodMs: number): LookupResult['verdict'] {
  return LOOKUP_VERDICTS[Math.floor(atMs / periodMs) % LOOKUP_VERDICTS.length]!;
}

export const lookup = defineProvider({
  name: 'lookup',
  api: apiOf<LookupApi>(),
  calls: [{ kind: 'lookup.check', method: 'check', takesOptions: false, latencyMs: 120, label: (r) => `check ${(r as Partial<LookupRequest> | undefined)?.value}` }],
  emptyLedger: emptyMeteredLedger,
  effects: meteredEffects('lookup'),
  create(ledger, options: MeteredWorldOptions) {
    const settings = meteredSettings(options);
    return {
      apply(_kind, request, _options, { nowMs, step, by }) {
        const req = request as LookupRequest;
        if (!req || typeof req.value !== 'string') return malformed(new TypeError('lookup.check needs { kind: "email-deliverability", value: string }'));
        if (creditsLeft(settings, ledger, nowMs) <= 0) {
          const error = Object.assign(new Error('out of credits (402)'), { code: 402 });
          return { error, summary: 'refused 402: out of credits', replySummary: 'code 402' };
        }
        const verdict = lookupVerdictAt(nowMs, settings.answerPeriodMs);
        ledger.credits.push({ kind: 'lookup', item: canonical({ kind: req.kind, value: req.value }), output: verdict, by, atMs: nowMs, step });
        const response: LookupResult = { value: req.value, verdict, checkedAtMs: nowMs };
        return { response, summary: `${req.value} looks ${verdict} now (1 credit)`, replySummary: verdict };
      },
    };
  },
});
