/**
 * Copies of message bodies handed to processes: each gets its own, so one process mutating a
 * message cannot change what another receives, and every copy is what a JSON round trip gives.
 */

/** Hand processes their own copy, so one process mutating a message cannot change another's. */
export function structuredCloneSafe<T>(v: T): T {
  // A lone number follows JSON too: -0 becomes 0, NaN and ±Infinity become null.
  if (typeof v === 'number') return (Number.isFinite(v) ? v + 0 : null) as T;
  if (v === null || typeof v !== 'object') return v;
  // Plain data (the usual message) is copied directly; anything else takes the JSON round trip,
  // whose result the direct copy equals wherever it applies.
  const copy = plainCopy(v, 0);
  return copy !== NOT_PLAIN ? (copy as T) : (JSON.parse(JSON.stringify(v)) as T);
}

const NOT_PLAIN = Symbol('not plain');

/**
 * A copy of `v` equal to JSON.parse(JSON.stringify(v)), or NOT_PLAIN when the two could differ:
 * only strings, booleans, null, finite numbers other than -0, arrays and objects whose prototype
 * is Object.prototype or null, with no undefined, no symbol keys, no getters, at most 32 deep.
 */
function plainCopy(v: unknown, depth: number): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0) ? v : NOT_PLAIN;
    case 'object': {
      if (v === null) return null;
      if (depth > 32) return NOT_PLAIN;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return NOT_PLAIN;
        const out = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const c = plainCopy(v[i], depth + 1);
          if (c === NOT_PLAIN) return NOT_PLAIN;
          out[i] = c;
        }
        return out;
      }
      const proto = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(v).length) return NOT_PLAIN;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        const d = Object.getOwnPropertyDescriptor(v, key)!;
        if (!('value' in d) || key === '__proto__') return NOT_PLAIN;
        const c = plainCopy(d.value, depth + 1);
        if (c === NOT_PLAIN) return NOT_PLAIN;
        out[key] = c;
      }
      return out;
    }
    default:
      return NOT_PLAIN;
  }
}
