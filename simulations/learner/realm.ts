/**
 * The learner's realm: Hardened JavaScript (the `ses` package). `hardenRealm()` locks the host
 * down (`lockdown()`): every intrinsic the host and the learner share — `Object.prototype`,
 * `Array.prototype.filter`, `Promise`, `JSON` … — is frozen, so learner code cannot change how the
 * engine, the checkers or the next run behave. Learner code then runs in a `Compartment` whose
 * global object holds only the shared, frozen JavaScript intrinsics and the few endowments below:
 * no `process`, `require`, `import()`, network, storage, timers, `performance`, `crypto`, the host's `Intl` (see simulatedIntl),
 * DOM or worker APIs, whatever the host has. Its clock and randomness throw with a hint (use env).
 *
 * Guarantees, once `hardenRealm()` has run: the learner's code reaches the engine only through the
 * values handed to it (`env`, a message, the `effectively-once` module, which is frozen); it
 * cannot add properties to or replace anything on a shared intrinsic or on its compartment's
 * global object, so it cannot keep memory outside its own module evaluation either.
 *
 * Called by every host that runs learner code (the tab's database worker, the CLI and its explore
 * threads); `learnerCompartment` calls it too, so no host can forget. Lockdown is once per realm
 * and cannot be undone.
 */
import 'ses';
import { GUARD_NAME, guardLoops, loopGuard } from './loop-guard';

/**
 * How the host is locked down. Each option keeps something the engine and the learner need:
 * - errorTaming 'unsafe': `error.stack` stays readable, so an error says the learner's line
 *   (`learner.ts:12:5`, see compile.ts) and the host keeps its own stacks;
 * - stackFiltering 'verbose': stacks printed as V8 writes them;
 * - overrideTaming 'severe': code written before frozen prototypes (`obj.toString = …` on an
 *   object inheriting a frozen `toString`) keeps working in PGlite, XState and the bundler's runtime;
 * - errorTrapping / unhandledRejectionTrapping 'none': the host reports what learner code left
 *   behind itself (worker-main.ts, the CLI), rather than SES exiting the process;
 * - consoleTaming / localeTaming 'unsafe': the host's console and locale methods as they were;
 * - domainTaming 'unsafe': Node's `domain` is left alone (nothing here uses it);
 * - reporting 'none': SES removes intrinsics it does not know (a newer engine's, such as
 *   Chromium's `Iterator.prototype.join`) without writing a console error about each: that removal
 *   is the safe outcome, and not an error the page or the CLI should show.
 */
export const LOCKDOWN_OPTIONS = {
  errorTaming: 'unsafe',
  stackFiltering: 'verbose',
  overrideTaming: 'severe',
  errorTrapping: 'none',
  unhandledRejectionTrapping: 'none',
  consoleTaming: 'unsafe',
  localeTaming: 'unsafe',
  domainTaming: 'unsafe',
  reporting: 'none',
} as const;

let hardened = false;

/** Lock the host's realm down (idempotent). Call it before any learner code runs. */
export function hardenRealm(): void {
  if (hardened) return;
  try {
    lockdown(LOCKDOWN_OPTIONS);
  } catch (err) {
    // Locked down already by another copy of this module (two bundles in one realm): that is the
    // state wanted. Anything else is a host SES cannot lock down, which must not run learner code.
    if (!/lockdown.*already|Already locked down/i.test(String((err as Error)?.message))) throw err;
  }
  hardened = true;
}

/** What learner code gets for reading the host's clock or randomness. */
export class SandboxError extends Error {
  constructor(what: string, instead: string) {
    super(`${what} is not available in the simulation: use ${instead}`);
    this.name = 'SandboxError';
  }
}

const refuse = (what: string, instead: string) => () => {
  throw new SandboxError(what, instead);
};

/** The compartment's `Compartment`: `new Compartment()` throws with a hint, as a call does. */
function noCompartment(): never {
  throw new SandboxError('Compartment', 'plain functions: your code already runs in a compartment of its own');
}

/**
 * The compartment's `Date`: dates from numbers and strings as usual (`new Date(0)`, `Date.UTC`,
 * `Date.parse`, `instanceof Date`), but reading the clock (`Date.now()`, `new Date()`, `Date()`)
 * throws with a hint. SES's own tamed Date throws too, with a message ("%SharedDate%.now()") a
 * learner cannot act on; `new Date(0).constructor` is SES's tamed Date, never the host's.
 */
function simulatedDate(SharedDate: DateConstructor): DateConstructor {
  const clock = 'env.clock.now() (simulated milliseconds)';
  function Date(this: unknown, ...args: unknown[]) {
    if (new.target === undefined) refuse('Date()', clock)();
    if (args.length === 0) refuse('new Date()', clock)();
    return Reflect.construct(SharedDate, args, new.target === Date ? SharedDate : new.target) as object;
  }
  Object.defineProperties(Date, {
    prototype: { value: SharedDate.prototype },
    now: { value: refuse('Date.now()', clock) },
    UTC: { value: SharedDate.UTC },
    parse: { value: SharedDate.parse },
  });
  return Date as unknown as DateConstructor;
}

/** The compartment's `Math`: the shared one with `random()` throwing a hint instead of SES's message. */
function simulatedMath(SharedMath: Math): Math {
  const descriptors = Object.getOwnPropertyDescriptors(SharedMath);
  descriptors.random = { value: refuse('Math.random()', 'env.random.int(n) or env.random.uuid()'), writable: false, enumerable: false, configurable: false };
  return Object.create(Object.getPrototypeOf(SharedMath) as object, descriptors) as Math;
}

/**
 * The compartment's `Intl`: the host's formatters with the machine's defaults taken out, so the
 * same code formats the same way in any tab and on CI. A missing locale is 'en-US' and a missing
 * time zone is 'UTC' (a business date in a customer's zone names its zone); formatting a date
 * needs the date itself (`format()` with none would read the host's clock).
 */
function simulatedIntl(HostIntl: typeof Intl): typeof Intl {
  const clock = 'env.clock.now(): new Intl.DateTimeFormat(…).format(new Date(env.clock.now()))';
  const locale = (locales: unknown) => (locales === undefined ? 'en-US' : locales) as string | string[];
  const dated = (date: unknown, what: string) => {
    if (date === undefined) refuse(what, clock)();
    return date as Date | number;
  };
  function DateTimeFormat(locales?: string | string[], options?: Intl.DateTimeFormatOptions) {
    const f = new HostIntl.DateTimeFormat(locale(locales), { ...options, timeZone: options?.timeZone ?? 'UTC' });
    return harden({
      format: (date?: Date | number) => f.format(dated(date, 'Intl.DateTimeFormat().format() with no date')),
      formatToParts: (date?: Date | number) => f.formatToParts(dated(date, 'Intl.DateTimeFormat().formatToParts() with no date')),
      formatRange: (a: Date | number, b: Date | number) => f.formatRange(a, b),
      resolvedOptions: () => f.resolvedOptions(),
    });
  }
  // Plain functions, so `new Intl.NumberFormat()` works as well as a call does (an arrow is no constructor).
  const withLocale = <A extends unknown[], R>(Ctor: new (locales: string | string[], ...rest: A) => R) =>
    function (locales?: string | string[], ...rest: A) {
      return new Ctor(locale(locales), ...rest);
    };
  return harden({
    DateTimeFormat,
    NumberFormat: withLocale(HostIntl.NumberFormat),
    Collator: withLocale(HostIntl.Collator),
    PluralRules: withLocale(HostIntl.PluralRules),
    RelativeTimeFormat: withLocale(HostIntl.RelativeTimeFormat),
    ListFormat: withLocale(HostIntl.ListFormat),
    getCanonicalLocales: (l: string | string[]) => HostIntl.getCanonicalLocales(l),
  }) as unknown as typeof Intl;
}

/** What learner code passes to `console.*`, as text: never the objects themselves (their getters, a custom inspect). */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** `console.log` and friends, writing text to the host's console (devtools in the tab, the CLI's output). */
function textConsole(host: Console): Pick<Console, 'log' | 'info' | 'warn' | 'error' | 'debug'> {
  const write = (method: 'log' | 'info' | 'warn' | 'error' | 'debug') => (...args: unknown[]) => {
    host[method](args.map(asText).join(' '));
  };
  return { log: write('log'), info: write('info'), warn: write('warn'), error: write('error'), debug: write('debug') };
}

/**
 * A fresh compartment for learner code: frozen global object, the shared intrinsics, the tamed
 * `Date` and `Math`, and a console that writes text. Module state lives in each evaluation of the
 * module body (compile.ts), not here, so one compartment serves every evaluation of one source:
 * its global object is frozen and holds nothing mutable, so evaluations cannot share memory
 * through it. A compartment costs ~0.2 ms to make (a schedule of the engine is ~1 ms), which is
 * why it is made once per source rather than once per process incarnation.
 */
export function learnerCompartment(): Compartment {
  hardenRealm();
  // Every text this compartment evaluates — the module, eval, Function — gets its loops guarded
  // (./loop-guard.ts). A nested Compartment would evaluate without that, so there is none.
  const compartment = new Compartment({ __options__: true, transforms: [guardLoops] });
  const global = compartment.globalThis;
  Object.defineProperties(global, {
    [GUARD_NAME]: { value: harden(loopGuard), writable: false, enumerable: false, configurable: false },
    Compartment: { value: noCompartment, writable: false, enumerable: false, configurable: false },
    Date: { value: simulatedDate(global.Date as DateConstructor), writable: false, enumerable: false, configurable: false },
    Math: { value: simulatedMath(global.Math as Math), writable: false, enumerable: false, configurable: false },
    console: { value: textConsole(console), writable: false, enumerable: false, configurable: false },
    Intl: { value: simulatedIntl(Intl), writable: false, enumerable: false, configurable: false },
  });
  harden(global);
  return compartment;
}
