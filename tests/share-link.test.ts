/**
 * Share links: every valid lab state survives encode → decode unchanged, and the decoder answers
 * thousands of hostile inputs (random text, truncations, bit flips, zip bombs, JSON that is not a
 * state, prototype-pollution keys) with ok/err — never a throw, never a state that fails validation.
 * A failing property prints fast-check's seed and path; replay with `{ seed, path }` in fc.assert.
 */
import fc from 'fast-check';
import { deflateSync, strToU8 } from 'fflate';
import { describe, expect, test } from 'vitest';
import { SCENARIO_CATALOG } from '../simulations/lessons/catalog';
import {
  decodeLabLink,
  encodeLabLink,
  labLinkHref,
  MAX_CODE_CHARS,
  MAX_FRAGMENT_CHARS,
  MAX_SEED,
  validateLabLink,
  type LabLinkInput,
} from '../simulations/course/share-link';
import type { Fault } from '../simulations/engine/types';
import { LESSONS } from '../simulations/lessons/index';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
/** A fragment holding any JSON text, packed exactly as the encoder packs (so only validation can refuse it). */
const packJson = (json: string) => `v1.${b64url(deflateSync(strToU8(json)))}`;

const processName = fc.stringMatching(/^[a-z][a-z0-9_-]{0,12}$/);
const stepKind = fc.constantFrom('db', 'queue.receive', 'queue.ack', 'queue.publish', 'email.send', 'payments.charge', 'sleep' as const);
const callKind = fc.constantFrom('email.send', 'payments.charge' as const);
const nth = fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined });
const fault: fc.Arbitrary<Fault> = fc.oneof(
  fc.record({ kind: fc.constant('crash' as const), process: processName, after: stepKind, nth }),
  fc.record({ kind: fc.constant('crash' as const), process: processName, before: stepKind, nth }),
  fc.record({ kind: fc.constant('crash' as const), process: processName, atStep: fc.integer({ min: 0, max: 100_000 }) }),
  fc.record({ kind: fc.constantFrom('lose-response', 'lose-request' as const), call: callKind, nth }),
  fc.record({ kind: fc.constant('slow-response' as const), call: callKind, nth, ms: fc.integer({ min: 0, max: 86_400_000 }) }),
  fc.record({ kind: fc.constant('duplicate-delivery' as const), message: processName }),
) as fc.Arbitrary<Fault>;

const linkInput: fc.Arbitrary<LabLinkInput> = fc
  .record({
    scenario: fc.constantFrom(...SCENARIO_CATALOG.map((s) => s.id)),
    which: fc.oneof(
      fc.constant({}),
      fc.record({ variant: fc.constantFrom('starter', 'solution' as const) }),
      // Code of any characters: unicode, quotes, control characters, lone surrogates excluded by JSON round trips anyway.
      fc.record({ code: fc.string({ unit: 'grapheme', maxLength: 400 }) }),
      fc.record({ code: fc.string({ unit: 'binary', maxLength: 200 }) }),
    ),
    seed: fc.integer({ min: 0, max: MAX_SEED }),
    faults: fc.array(fault, { maxLength: 8 }),
    step: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }),
    choices: fc.option(fc.array(fc.integer({ min: 0, max: 1_000 }), { maxLength: 300 }), { nil: undefined }),
  })
  .map(({ which, step, choices, ...rest }) => ({ ...rest, ...which, ...(step === undefined ? {} : { step }), ...(choices === undefined ? {} : { choices }) }));

/** Strip `undefined` fields, as JSON does. */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** The decoder's contract for any input. */
function expectWellBehaved(fragment: string): void {
  const r = decodeLabLink(fragment);
  expect(typeof r.ok).toBe('boolean');
  if (r.ok) {
    // Anything accepted is a valid state and re-encodes to the same state.
    expect(plain(validateLabLink(plain(r.link)))).toEqual(plain(r.link));
    const again = decodeLabLink(encodeLabLink(r.link));
    expect(again.ok && plain(again.link)).toEqual(plain(r.link));
  } else {
    expect(r.error).toMatch(/share link/);
    expect(r.error.length).toBeLessThan(300);
  }
}

test('an error quotes at most a short piece of what the link held (fuzz counterexample, seed -1088534257)', () => {
  const huge = { v: [Array.from({ length: 50 }, (_, i) => `item ${i}`)], scenario: 'receipt-redelivery', seed: 1, faults: [] };
  expectWellBehaved(packJson(JSON.stringify(huge)));
});

describe('round trip', () => {
  test('decode(encode(state)) is the state, for thousands of generated states', () => {
    fc.assert(
      fc.property(linkInput, (input) => {
        const fragment = encodeLabLink(input);
        expect(fragment).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
        const r = decodeLabLink(`#${fragment}`);
        expect(r).toEqual({ ok: true, link: plain({ v: 1, ...input }) });
      }),
      { numRuns: 1500 },
    );
  });

  test('every scenario\'s demonstration survives, and labLinkHref points at its lab', () => {
    for (const s of LESSONS) {
      const href = labLinkHref({ scenario: s.id, variant: 'starter', seed: s.demo.seed, faults: s.demo.faults, step: 3 });
      expect(href.startsWith(`/lab/${s.id}/#v1.`)).toBe(true);
      const r = decodeLabLink(href.slice(href.indexOf('#')));
      expect(r.ok && plain(r.link)).toEqual(plain({ v: 1, scenario: s.id, variant: 'starter', seed: s.demo.seed, faults: s.demo.faults, step: 3 }));
      // A solution's whole source fits comfortably.
      const withCode = encodeLabLink({ scenario: s.id, code: s.variants.solution.code, seed: 1, faults: s.demo.faults });
      expect(withCode.length).toBeLessThan(MAX_FRAGMENT_CHARS / 4);
    }
  });

  test('the encoder refuses states that are not valid instead of making a bad link', () => {
    const base = { scenario: 'receipt-redelivery', seed: 1, faults: [] as Fault[] };
    expect(() => encodeLabLink({ ...base, scenario: 'nope' })).toThrow(/scenario/);
    expect(() => encodeLabLink({ ...base, seed: 1.5 })).toThrow(/seed/);
    expect(() => encodeLabLink({ ...base, seed: -1 })).toThrow(/seed/);
    expect(() => encodeLabLink({ ...base, code: 'x'.repeat(MAX_CODE_CHARS + 1) })).toThrow(/longer than/);
    expect(() => encodeLabLink({ ...base, variant: 'starter', code: 'x' })).toThrow(/one of them/);
    expect(() => encodeLabLink({ ...base, faults: [{ kind: 'crash', process: 'worker-1' } as unknown as Fault] })).toThrow(/fault plan/);
    expect(() => encodeLabLink({ ...base, step: -2 })).toThrow(/step/);
  });
});

describe('the decoder under fuzzing', () => {
  const valid = encodeLabLink({
    scenario: 'receipt-redelivery',
    code: 'export async function handleMessage(msg, env) {\n  // "quotes" and ünïcode ✓\n}\n',
    seed: 7,
    faults: [{ kind: 'crash', process: 'worker-1', after: 'email.send' }, { kind: 'duplicate-delivery', message: 'm1' }],
    step: 12,
  });

  test('random strings, with and without the prefix', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.string().map((s) => `v1.${s}`), fc.base64String().map((s) => `v1.${s}`)), (s) => {
        expectWellBehaved(s);
        expectWellBehaved(`#${s}`);
      }),
      { numRuns: 3000 },
    );
  });

  test('every truncation of a valid link', () => {
    for (let n = 0; n < valid.length; n++) {
      const cut = valid.slice(0, n);
      expectWellBehaved(cut);
      // A link cut inside its data never passes as a different state.
      const r = decodeLabLink(cut);
      if (r.ok) throw new Error(`a truncation to ${n} characters decoded`);
    }
  });

  test('bit flips and character swaps in a valid link', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.nat(63)), { minLength: 1, maxLength: 4 }), (edits) => {
        const chars = [...valid];
        for (const [at, c] of edits) {
          const i = 3 + (at % (chars.length - 3));
          chars[i] = alphabet[(alphabet.indexOf(chars[i]!) ^ (1 << c % 6)) & 63]!;
        }
        expectWellBehaved(chars.join(''));
      }),
      { numRuns: 3000 },
    );
  });

  test('a zip bomb is refused after unpacking a bounded amount', () => {
    const bomb = packJson(`{"v":1,"scenario":"receipt-redelivery","seed":1,"faults":[],"code":"${' '.repeat(12_000_000)}"}`);
    expect(bomb.length).toBeLessThan(MAX_FRAGMENT_CHARS);
    const r = decodeLabLink(bomb);
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/unpacks to more than 128 KB/) });
  });

  test('huge fragments are refused unread', () => {
    const r = decodeLabLink(`v1.${'A'.repeat(5_000_000)}`);
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/too long/) });
  });

  test('valid compression of text that is not JSON, or JSON that is not a state', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null')), (text) => {
        expectWellBehaved(packJson(text));
      }),
      { numRuns: 2000 },
    );
    expect(decodeLabLink(packJson('{"v":1,'))).toEqual({ ok: false, error: expect.stringMatching(/not readable/) });
    expect(decodeLabLink(packJson('[1,2]'))).toEqual({ ok: false, error: expect.stringMatching(/does not hold a lab state/) });
  });

  test('states that are almost right are refused with the reason', () => {
    const ok = { v: 1, scenario: 'receipt-redelivery', seed: 1, faults: [] };
    const cases: [unknown, RegExp][] = [
      [{ ...ok, v: 2 }, /version 2/],
      [{ ...ok, scenario: 'drop-tables' }, /scenario this course does not have/],
      [{ ...ok, seed: '1' }, /seed/],
      [{ ...ok, seed: 2 ** 40 }, /seed/],
      [{ ...ok, faults: [{ kind: 'meteor' }] }, /fault plan is not valid: fault 1: unknown kind/],
      [{ ...ok, faults: Array.from({ length: 40 }, () => ({ kind: 'duplicate-delivery', message: 'm1' })) }, /at most 32/],
      [{ ...ok, code: 42 }, /code is not text/],
      [{ ...ok, code: 'x'.repeat(MAX_CODE_CHARS + 1) }, /longer than/],
      [{ ...ok, step: 1.5 }, /step/],
      [{ ...ok, extra: true }, /unknown field "extra"/],
      [{ ...ok, choices: [0, 1, -1] }, /choices must be whole numbers/],
      [{ ...ok, choices: [0.5] }, /choices must be whole numbers/],
      [{ ...ok, choices: 'abc' }, /choices must be a list/],
      [{ ...ok, choices: new Array(10_001).fill(0) }, /at most 10000/],
    ];
    for (const [state, error] of cases) {
      const r = decodeLabLink(packJson(JSON.stringify(state)));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatch(error);
    }
    expect(decodeLabLink('v2.abc')).toEqual({ ok: false, error: expect.stringMatching(/format version 2; this lab reads version 1/) });
    expect(decodeLabLink('')).toEqual({ ok: false, error: 'The share link is empty.' });
    expect(decodeLabLink('#hello')).toEqual({ ok: false, error: expect.stringMatching(/not an Effectively Once share link/) });
  });

  test('prototype-pollution keys are refused and pollute nothing', () => {
    const payloads = [
      '{"__proto__":{"polluted":1},"v":1,"scenario":"receipt-redelivery","seed":1,"faults":[]}',
      '{"constructor":{"prototype":{"polluted":1}},"v":1,"scenario":"receipt-redelivery","seed":1,"faults":[]}',
      '{"v":1,"scenario":"receipt-redelivery","seed":1,"faults":[{"kind":"duplicate-delivery","message":"m1","__proto__":{"polluted":1}}]}',
      '{"v":1,"scenario":"__proto__","seed":1,"faults":[]}',
      '{"v":1,"scenario":"toString","seed":1,"faults":[]}',
    ];
    for (const json of payloads) {
      const r = decodeLabLink(packJson(json));
      if (r.ok) {
        // Only the fault with a stray key may pass — as a clean copy without it.
        expect(Object.keys(r.link.faults[0]!)).toEqual(['kind', 'message']);
      }
      expectWellBehaved(packJson(json));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(decodeLabLink(packJson(payloads[0]!))).toEqual({ ok: false, error: expect.stringMatching(/unknown field "__proto__"/) });
  });
});
