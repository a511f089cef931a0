/**
 * The one list of providers. Everything that varies with the providers derives from it: the kinds
 * of call faults can name, the ledger and its empty value, the world's provider options, the
 * effect counts of a run, and `env`'s provider namespaces. Adding a provider is one file beside
 * this one and one entry in PROVIDERS.
 */
import { email, type EmailOptions } from './email';
import { lookup } from './lookup';
import type { MeteredWorldOptions } from './metered-account';
import { payments, type PaymentsOptions } from './payments';
import type { KeyLedger, Outcome, Provider, ProviderInstance, CallSpec, RequestContext, CallOptions } from './provider';
import { transform } from './transform';

export const PROVIDERS = [email, payments, transform, lookup] as const;

type Registered = (typeof PROVIDERS)[number];

/** The provider calls faults can name: `email.send`, `payments.charge`, … */
export type CallKind = Registered['calls'][number]['kind'];

/** `env`'s provider namespaces, one per registered provider: `env.email.send(…)`, `env.payments.charge(…)`, … */
export type ProviderApis = { readonly [P in Registered as P['name']]: P['api'] };

/** Every call kind, in registry order. */
export const CALL_KINDS: readonly CallKind[] = PROVIDERS.flatMap((p) => p.calls.map((c) => c.kind));

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** A message a process published to the queue, as the ledger keeps it. */
export interface Published {
  id: string;
  topic: string;
  body: unknown;
  by: string;
  step: number;
}

/** Everything the outside world saw: each provider's part, the keys' replays and refusals, and what was published. */
export type Ledger = UnionToIntersection<ReturnType<Registered['emptyLedger']>> &
  KeyLedger & {
    published: Published[];
  };

/** Provider behaviour of a world: each provider's options, plus what every call shares. */
export type ProviderOptions = EmailOptions &
  PaymentsOptions &
  MeteredWorldOptions & {
    /** Usual time from request to response, per call kind. */
    latencyMs?: Partial<Record<CallKind, number>>;
    /** How long a caller waits for a response before it gives up with a timeout (default 5 s). */
    timeoutMs?: number;
  };

/** An empty ledger. */
export function emptyLedger(): Ledger {
  const ledger = { replays: [], refusals: [], published: [] } as unknown as Ledger;
  for (const p of PROVIDERS) Object.assign(ledger, p.emptyLedger());
  return ledger;
}

/** Counts of side effects by kind, each provider's first ("receipts:order-1042"), then replays, refusals and publications. */
export function ledgerEffects(ledger: Ledger, bump: (key: string) => void): void {
  for (const p of PROVIDERS) (p as Provider<string, string, object, object, unknown>).effects(ledger, bump);
  for (const r of ledger.replays) bump(`replays:${r.kind}`);
  for (const r of ledger.refusals) bump(`refusals:${r.kind}`);
  for (const p of ledger.published) bump(`published:${p.topic}`);
}

/** A call's declaration and the provider that answers it. */
export interface RegisteredCall extends CallSpec<CallKind> {
  provider: string;
}

const CALLS = new Map<string, RegisteredCall>(PROVIDERS.flatMap((p) => p.calls.map((c) => [c.kind, { ...c, provider: p.name }] as const)));

/** The declaration of call `kind`, or undefined for a kind no provider has. */
export function callSpec(kind: string): RegisteredCall | undefined {
  return CALLS.get(kind);
}

/** The providers of one run, acting on requests and writing the ledger. */
export class Providers {
  readonly ledger: Ledger = emptyLedger();
  readonly timeoutMs: number;
  private readonly latency: Record<string, number>;
  private readonly byKind = new Map<string, ProviderInstance>();

  constructor(options: ProviderOptions) {
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.latency = {};
    for (const p of PROVIDERS) {
      const instance = (p as Provider<string, string, object, object, unknown>).create(this.ledger, options);
      for (const c of p.calls) {
        this.latency[c.kind] = options.latencyMs?.[c.kind] ?? c.latencyMs;
        this.byKind.set(c.kind, instance);
      }
    }
  }

  latencyMs(kind: CallKind): number {
    return this.latency[kind]!;
  }

  /** The provider receives a request of `kind` and acts on it. */
  apply(kind: CallKind, request: unknown, options: CallOptions | undefined, at: RequestContext): Outcome {
    return this.byKind.get(kind)!.apply(kind, request, options, at);
  }
}

export { TimeoutError } from './provider';
export type { CallOptions } from './provider';
