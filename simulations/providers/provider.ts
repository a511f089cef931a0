/**
 * What a simulated provider is: a named service in the world (its swimlane and its `env` namespace),
 * the calls a process may make to it, its part of the ledger, and how it acts on a request. The
 * engine knows providers only through this interface and the registry (./registry.ts): the kinds
 * of call, the ledger, the effect counts and the fault menu's call names all derive from there.
 *
 * A provider acts when a request reaches it; whether the caller hears the answer is the engine's
 * business (lost responses, timeouts), so every fault a provider must survive is outside it.
 */

/** Options a provider call may carry. */
export interface CallOptions {
  /** The provider returns the original result for a key it has seen (within its retention). */
  idempotencyKey?: string;
}

/** What one request did, as the provider tells it. */
export interface Outcome {
  response?: unknown;
  error?: Error;
  /** What the provider did, for the caller's call line. */
  summary: string;
  /** What the reply says. */
  replySummary: string;
}

/** Requests answered from a remembered key, or refused for reusing one: kept by every provider with keys. */
export interface KeyLedger {
  replays: { kind: string; key: string; by: string; step: number }[];
  refusals: { kind: string; key: string; by: string; step: number }[];
}

/** One call a process may make: `env.<provider>.<method>(request, options?)`. */
export interface CallSpec<K extends string = string> {
  /** The call's kind, as faults and the trace name it: `<provider>.<method>`. */
  kind: K;
  method: string;
  /** How the trace names one request ("send receipt for order 1042 to ada@example.com"). */
  label(request: unknown): string;
  /** Whether the call takes CallOptions as its second argument (an idempotency key). */
  takesOptions: boolean;
  /** Usual time from request to response. */
  latencyMs: number;
}

/** Where a request comes from and when: what every provider records with an effect. */
export interface RequestContext {
  nowMs: number;
  /** The trace index of the call. */
  step: number;
  /** The calling process. */
  by: string;
  /** Items of a batch (indices from 0) the provider's rate limiter refuses, whatever its window: a fault's. */
  refuseItems?: readonly number[];
}

/** A provider living through one run. */
export interface ProviderInstance {
  apply(kind: string, request: unknown, options: CallOptions | undefined, at: RequestContext): Outcome;
}

/**
 * A provider: one file each, registered once in ./registry.ts.
 * `L` is its part of the ledger, `O` its world options, `K` its call kinds.
 */
export interface Provider<Name extends string = string, K extends string = string, L extends object = object, O extends object = object, A = unknown> {
  /** Its swimlane and `env` namespace. */
  readonly name: Name;
  /** The type of `env.<name>` (a type carrier: see `apiOf`); the registry derives `Env` from it. */
  readonly api: A;
  readonly calls: readonly CallSpec<K>[];
  /** Its part of a fresh ledger. */
  emptyLedger(): L;
  /** Start it for one run; `ledger` is the whole run's ledger, shared with the other providers. */
  create(ledger: L & KeyLedger, options: O): ProviderInstance;
  /** Count its side effects by kind (`bump('receipts:order-1042')`), for a run's summary. */
  effects(ledger: L, bump: (key: string) => void): void;
}

/** Define a provider, keeping its literal name and call kinds for the registry's types. */
export function defineProvider<Name extends string, K extends string, L extends object, O extends object, A>(p: Provider<Name, K, L, O, A>): Provider<Name, K, L, O, A> {
  return p;
}

/** The type of a provider's `env` namespace, carried to the registry's types (no value at run time). */
export function apiOf<A>(): A {
  return undefined as A;
}

/** A call that got no answer before its deadline. Whether the provider acted is unknown to the caller. */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(kind: string, timeoutMs: number) {
    super(`${kind} timed out after ${timeoutMs / 1000} s; the request may or may not have been applied`);
    this.name = 'TimeoutError';
  }
}

/** A request the provider refuses for its shape, answered as the caller's call line says. */
export function malformed(error: Error): Outcome {
  return { error, summary: 'rejected: malformed request', replySummary: error.message };
}

/** The narration's note on a key the provider had forgotten: when it was first used, and how long keys are kept. */
export function forgottenKey(agoMs: number, retentionHours: number): string {
  const hours = Math.floor(agoMs / 3_600_000);
  return ` (this key was first used ${hours} h ago; the provider keeps keys ${retentionHours} h, so it had forgotten it)`;
}
