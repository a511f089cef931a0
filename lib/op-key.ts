/**
 * Operation-derived dedupe keys.
 *
 * Guarantees: `opKey(kind, identity)` is the same for the same logical operation however often,
 * wherever (browser, Node, a worker) and in whatever key order the identity object was built;
 * different kinds or identities give different keys. Synchronous, so a key can be computed inside
 * any handler without awaiting. Never put timestamps, attempt numbers or random values in identity.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** A value that can be part of an operation's identity. */
export type Identity = string | number | boolean | null | readonly Identity[] | { readonly [k: string]: Identity };

/**
 * Stable JSON: object keys sorted recursively, arrays kept in order, no whitespace.
 * `undefined` members of objects are dropped (as JSON.stringify does), so `{a: 1, b: undefined}`
 * and `{a: 1}` are the same operation.
 */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v === undefined ? null : v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      // A Date, Map or class instance has no own enumerable data to list: it would turn into "{}"
      // and two different operations would share a key. Make the caller say what identifies it.
      throw new TypeError(`opKey identity holds a ${proto?.constructor?.name ?? 'non-plain object'}; pass plain data (e.g. date.toISOString())`);
    }
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`opKey identity holds ${value}, which has no stable JSON form`);
  }
  if (value === undefined || typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol') {
    throw new TypeError(`opKey identity holds a ${typeof value}, which has no JSON form`);
  }
  return JSON.stringify(value);
}

/** Hashes already computed: a handler derives the same few keys on every delivery and retry. */
const hashed = new Map<string, string>();
const HASHED_MAX = 4096;

/** Hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  let hex = hashed.get(text);
  if (hex === undefined) {
    hex = bytesToHex(sha256(utf8ToBytes(text)));
    if (hashed.size >= HASHED_MAX) hashed.clear();
    hashed.set(text, hex);
  }
  return hex;
}

/** The key of one logical operation: hex SHA-256 of `${kind}:${canonical(identity)}`. */
export function opKey(kind: string, identity: unknown): string {
  return sha256Hex(`${kind}:${canonical(identity)}`);
}
