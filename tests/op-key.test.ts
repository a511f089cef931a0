/**
 * opKey / canonical / sha256Hex: fixed examples checked against node:crypto, and properties
 * (key order never matters, array order always does, canonical is JSON, kinds separate keys).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonical, opKey, sha256Hex } from '../lib/op-key';

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** JSON has one zero: JSON.stringify(-0) is "0". */
const json = fc.jsonValue().map(function noNegativeZero(v: unknown): unknown {
  if (Object.is(v, -0)) return 0;
  if (Array.isArray(v)) return v.map(noNegativeZero);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, noNegativeZero(x)]));
  }
  return v;
});

/** The same value with every object's keys reinserted in a generated order. */
function reorderKeys(v: unknown, g: fc.GeneratorValue): unknown {
  if (Array.isArray(v)) return v.map((x) => reorderKeys(x, g));
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    const order = g(fc.shuffledSubarray, keys, { minLength: keys.length, maxLength: keys.length });
    // fromEntries defines own properties, so even a "__proto__" key stays a plain key.
    return Object.fromEntries(order.map((k) => [k, reorderKeys((v as Record<string, unknown>)[k], g)]));
  }
  return v;
}

describe('fixed examples', () => {
  it("opKey('receipt-email', {orderId: 1042}) is sha256 of its canonical text, and stable", () => {
    const key = opKey('receipt-email', { orderId: 1042 });
    expect(key).toBe(nodeSha256('receipt-email:{"orderId":1042}'));
    // Pinned: a change here would orphan every key already stored in operations.
    expect(key).toBe('e50f5af2b106d3ac7abee682fb45db589549e95efd31de9743c39330012ebfbd');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sha256Hex gives the same hash from its memo, and after the memo was emptied', () => {
    const first = sha256Hex('order-1042:charge');
    for (let i = 0; i < 5000; i++) expect(sha256Hex(`filler-${i}`)).toBe(nodeSha256(`filler-${i}`));
    expect(sha256Hex('order-1042:charge')).toBe(first);
    expect(sha256Hex('order-1042:charge')).toBe(nodeSha256('order-1042:charge'));
  });

  it('sha256Hex matches node:crypto', () => {
    expect(sha256Hex('order-1042:charge')).toBe(nodeSha256('order-1042:charge'));
    expect(sha256Hex('order-1042:charge')).toBe('e2511a0675c71d1be210a69d4e4c14df3250d4ac2e10b665eb300aacf87436e1');
    expect(sha256Hex('')).toBe(nodeSha256(''));
    expect(sha256Hex('Grüße, 東京 ✓ 😀')).toBe(nodeSha256('Grüße, 東京 ✓ 😀'));
  });

  it('canonical sorts keys recursively, keeps array order, has no whitespace', () => {
    expect(canonical({ b: 1, a: [3, { d: 1, c: 'x y' }], ab: null })).toBe('{"a":[3,{"c":"x y","d":1}],"ab":null,"b":1}');
    expect(canonical([2, 1])).toBe('[2,1]');
    expect(canonical('s')).toBe('"s"');
    expect(canonical(true)).toBe('true');
    expect(canonical({})).toBe('{}');
  });

  it('sorts integer-like keys as strings too (JS objects enumerate those first, whatever the insertion order)', () => {
    const value = { b: 2, '': 0, 9: 4, 10: 3, '0': 1 };
    expect(JSON.stringify(value)).toBe('{"0":1,"9":4,"10":3,"b":2,"":0}');
    expect(canonical(value)).toBe('{"":0,"0":1,"10":3,"9":4,"b":2}');
  });

  it('undefined object members are dropped and undefined array items become null, as in JSON', () => {
    expect(canonical({ a: 1, b: undefined })).toBe(canonical({ a: 1 }));
    expect(canonical([1, undefined])).toBe('[1,null]');
  });

  it('NaN, ±Infinity, undefined, functions and symbols throw, at any depth', () => {
    for (const bad of [NaN, Infinity, -Infinity, undefined, () => 1, Symbol('s')]) {
      expect(() => canonical(bad)).toThrow(TypeError);
      expect(() => opKey('k', bad)).toThrow(TypeError);
      if (bad !== undefined) {
        expect(() => opKey('k', { orderId: 1, x: bad })).toThrow(TypeError);
        expect(() => opKey('k', [1, [bad]])).toThrow(TypeError);
      }
    }
  });

  it('Dates, Maps, Sets, class instances and bigints are rejected, so distinct values never share a key', () => {
    class Order {
      constructor(readonly id: number) {}
    }
    for (const bad of [new Date(1), new Map([[1, 2]]), new Set([1]), new Order(1), 1n]) {
      expect(() => opKey('x', { at: bad })).toThrow(TypeError);
    }
    // Plain objects, including ones without a prototype, are data.
    const bare = Object.assign(Object.create(null), { orderId: 1 });
    expect(opKey('x', bare)).toBe(opKey('x', { orderId: 1 }));
  });
});

describe('properties', () => {
  it('keys inserted in any order give the same canonical text and key', () => {
    fc.assert(
      fc.property(json, fc.gen(), fc.string(), (value, g, kind) => {
        const shuffled = reorderKeys(value, g);
        expect(canonical(shuffled)).toBe(canonical(value));
        expect(opKey(kind, shuffled)).toBe(opKey(kind, value));
      }),
    );
  });

  it('arrays in a different order give a different key', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(json, { minLength: 2, maxLength: 8, selector: canonical }),
        fc.nat(),
        fc.nat(),
        (items, i0, j0) => {
          const i = i0 % items.length;
          const j = j0 % items.length;
          fc.pre(i !== j);
          const swapped = [...items];
          [swapped[i], swapped[j]] = [swapped[j], swapped[i]];
          expect(opKey('k', { items: swapped })).not.toBe(opKey('k', { items }));
        },
      ),
    );
  });

  it('canonical output is JSON that parses back to a deep-equal value', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonical(value);
        expect(JSON.parse(text)).toEqual(value);
        // The same characters as JSON.stringify, only in another key order: no whitespace added,
        // strings and numbers encoded as JSON encodes them.
        expect(text.length).toBe(JSON.stringify(value).length);
        expect(canonical(JSON.parse(text))).toBe(text);
      }),
    );
  });

  it('different kinds give different keys for the same identity', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), json, (a, b, identity) => {
        fc.pre(a !== b);
        expect(opKey(a, identity)).not.toBe(opKey(b, identity));
      }),
    );
  });

  it('different identities give different keys; a colon in the kind cannot make two operations collide', () => {
    fc.assert(
      fc.property(fc.string(), json, fc.string(), json, (k1, v1, k2, v2) => {
        fc.pre(k1 !== k2 || canonical(v1) !== canonical(v2));
        expect(opKey(k1, v1)).not.toBe(opKey(k2, v2));
      }),
    );
    // `${kind}:${canonical}` is unambiguous because canonical text is one whole JSON value.
    expect(opKey('a:1', 2)).not.toBe(opKey('a', '1:2'));
  });

  it('opKey is sha256 of `${kind}:${canonical(identity)}`', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), json, (kind, identity) => {
        expect(opKey(kind, identity)).toBe(nodeSha256(`${kind}:${canonical(identity)}`));
      }),
    );
  });

  it('a non-JSON number anywhere inside a JSON value throws', () => {
    fc.assert(
      fc.property(fc.array(json, { maxLength: 4 }), fc.constantFrom(NaN, Infinity, -Infinity), fc.nat(), (items, bad, at) => {
        const withBad = [...items];
        withBad.splice(at % (items.length + 1), 0, bad);
        expect(() => opKey('k', { items: withBad })).toThrow(TypeError);
      }),
    );
  });
});
