/**
 * Share links: a lab state (scenario, code or variant, seed, fault plan, selected event, and the
 * scheduler's choices when a replay steered the run) packed into a URL fragment — JSON, deflated
 * with fflate, base64url, behind a `v1.` version prefix.
 *
 * Guarantees of the decoder, whatever the input: it never throws, it returns `{ ok: true }` only
 * for a state that passes strict validation (known scenario, known fields only, fault plan through
 * `parseFaultPlan`, bounded code, integer seed and step), and it never holds more than
 * `MAX_FRAGMENT_CHARS` of input or about `MAX_JSON_BYTES` + one chunk's output in memory: the
 * inflater is fed in small chunks and stopped as soon as the output passes the cap, so a
 * "zip bomb" costs a few hundred kilobytes, not gigabytes. Pure: no DOM, no React, no clock.
 */
import { deflateSync, Inflate, strFromU8, strToU8 } from 'fflate';
import { isScenarioId } from '../lessons/ids';
import { FaultPlanError, parseFaultPlan } from '../engine/faults';
import type { Fault } from '../engine/types';

/** The format version written into every link (prefix `v1.` and field `v: 1`). */
export const SHARE_LINK_VERSION = 1;

/** Longest fragment the decoder reads (characters after `#`). Longer input is refused unread. */
export const MAX_FRAGMENT_CHARS = 24_000;

/** Most bytes the decompressed JSON may have. */
export const MAX_JSON_BYTES = 128 * 1024;

/** Longest shared code, in characters. */
export const MAX_CODE_CHARS = 16_000;

/** Highest seed and event index a link may carry. */
export const MAX_SEED = 2 ** 31 - 1;
export const MAX_STEP = 100_000;

/** Most scheduler choices a link may carry, and the largest one. */
export const MAX_CHOICES = 10_000;
export const MAX_CHOICE = 1_000;

/** Compressed bytes fed to the inflater at a time: bounds what one chunk can expand to (~1 MB). */
const INFLATE_CHUNK_BYTES = 1024;

/** The lab state a link carries. */
export interface LabLink {
  v: 1;
  /** A lesson id (simulations/lessons/ids.ts). */
  scenario: string;
  /** Show the scenario's own Starter or Solution code (never with `code`). */
  variant?: 'starter' | 'solution';
  /** The sender's own code, offered to the receiver for "Your code" (never with `variant`). */
  code?: string;
  seed: number;
  /** The whole fault plan of the run (demonstration faults and injected ones). */
  faults: Fault[];
  /** The trace event that was selected: the receiver's first run stops there. */
  step?: number;
  /**
   * The scheduler's choices of the shared run, when it was steered by them (a replayed
   * counterexample, a rerun with an injected fault): the receiver's first run makes the same ones.
   */
  choices?: number[];
}

/** What `encodeLabLink` and `labLinkHref` take: a `LabLink` without the version. */
export type LabLinkInput = Omit<LabLink, 'v'>;

export type DecodeResult = { ok: true; link: LabLink } | { ok: false; error: string };

/** A state that cannot be put into a link (or a link that cannot be read). */
export class ShareLinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShareLinkError';
  }
}

const FIELDS = new Set(['v', 'scenario', 'variant', 'code', 'seed', 'faults', 'step', 'choices']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** Check a value as a link state; returns a fresh object holding only the known fields. */
export function validateLabLink(value: unknown): LabLink {
  if (!isPlainObject(value)) throw new ShareLinkError('the link does not hold a lab state');
  for (const key of Object.keys(value)) {
    if (!FIELDS.has(key)) throw new ShareLinkError(`the link holds an unknown field ${JSON.stringify(key.slice(0, 40))}`);
  }
  if (value.v !== SHARE_LINK_VERSION) throw new ShareLinkError(`the link is of format version ${String(JSON.stringify(value.v)).slice(0, 40)}; this lab reads version ${SHARE_LINK_VERSION}`);
  const scenario = value.scenario;
  if (typeof scenario !== 'string' || !isScenarioId(scenario)) {
    throw new ShareLinkError(`the link names a scenario this course does not have (${JSON.stringify(String(scenario).slice(0, 40))})`);
  }
  const link: LabLink = { v: 1, scenario, seed: 0, faults: [] };
  if (value.variant !== undefined) {
    if (value.variant !== 'starter' && value.variant !== 'solution') throw new ShareLinkError('the link\'s variant must be "starter" or "solution"');
    link.variant = value.variant;
  }
  if (value.code !== undefined) {
    if (typeof value.code !== 'string') throw new ShareLinkError('the link\'s code is not text');
    if (value.code.length > MAX_CODE_CHARS) throw new ShareLinkError(`the shared code is longer than ${MAX_CODE_CHARS} characters`);
    if (link.variant) throw new ShareLinkError('the link holds both a variant and code; it may hold one of them');
    link.code = value.code;
  }
  if (typeof value.seed !== 'number' || !Number.isInteger(value.seed) || value.seed < 0 || value.seed > MAX_SEED) {
    throw new ShareLinkError(`the link's seed must be a whole number from 0 to ${MAX_SEED}`);
  }
  link.seed = value.seed;
  try {
    link.faults = parseFaultPlan(value.faults);
  } catch (error) {
    if (error instanceof FaultPlanError) throw new ShareLinkError(`the link's fault plan is not valid: ${error.message}`);
    throw error;
  }
  if (value.step !== undefined) {
    if (typeof value.step !== 'number' || !Number.isInteger(value.step) || value.step < 0 || value.step > MAX_STEP) {
      throw new ShareLinkError(`the link's step must be a whole number from 0 to ${MAX_STEP}`);
    }
    link.step = value.step;
  }
  if (value.choices !== undefined) {
    const choices = value.choices;
    if (!Array.isArray(choices) || choices.length > MAX_CHOICES) throw new ShareLinkError(`the link's choices must be a list of at most ${MAX_CHOICES} numbers`);
    if (!choices.every((c): c is number => typeof c === 'number' && Number.isInteger(c) && c >= 0 && c <= MAX_CHOICE)) {
      throw new ShareLinkError(`the link's choices must be whole numbers from 0 to ${MAX_CHOICE}`);
    }
    link.choices = [...choices];
  }
  return link;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new ShareLinkError('the link contains characters a share link never has (it may have been cut or edited)');
  if (text.length % 4 === 1) throw new ShareLinkError('the link is cut off: its data has an impossible length');
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const binary = atob(padded);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Inflate `data`, refusing (without allocating it) any output over `maxBytes`. */
function inflateCapped(data: Uint8Array, maxBytes: number): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  let over = false;
  let ended = false;
  const inflater = new Inflate((chunk, final) => {
    total += chunk.length;
    if (total > maxBytes) over = true;
    else parts.push(chunk);
    if (final) ended = true;
  });
  for (let at = 0; at < data.length && !over; at += INFLATE_CHUNK_BYTES) {
    const end = Math.min(data.length, at + INFLATE_CHUNK_BYTES);
    inflater.push(data.subarray(at, end), end === data.length);
  }
  if (over) throw new ShareLinkError(`the link unpacks to more than ${Math.round(maxBytes / 1024)} KB; a lab state is never that large`);
  if (!ended) throw new ShareLinkError('the link is cut off: its compressed data ends early');
  const out = new Uint8Array(total);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

/** Encode a lab state as a fragment (without `#`). Throws `ShareLinkError` for a state that cannot be shared. */
export function encodeLabLink(input: LabLinkInput): string {
  const link = validateLabLink({ v: SHARE_LINK_VERSION, ...input });
  const json = JSON.stringify(link);
  const fragment = `v${SHARE_LINK_VERSION}.${toBase64Url(deflateSync(strToU8(json), { level: 9 }))}`;
  if (fragment.length > MAX_FRAGMENT_CHARS) throw new ShareLinkError('this code is too long to fit in a link; share a shorter version');
  return fragment;
}

/** The lab URL (path and fragment) that opens `link`, e.g. `/lab/receipt-redelivery/#v1.…`. */
export function labLinkHref(link: { scenario: string; variant?: 'starter' | 'solution'; code?: string; seed: number; faults: Fault[]; step?: number }): string {
  return `/lab/${link.scenario}/#${encodeLabLink(link)}`;
}

/**
 * Read a fragment (with or without the leading `#`). Never throws: anything that is not a valid
 * link of this version comes back as `{ ok: false, error }` with a sentence for the learner.
 */
export function decodeLabLink(fragment: string): DecodeResult {
  try {
    if (typeof fragment !== 'string') return { ok: false, error: 'The share link is empty.' };
    const text = fragment.startsWith('#') ? fragment.slice(1) : fragment;
    if (text.length === 0) return { ok: false, error: 'The share link is empty.' };
    if (text.length > MAX_FRAGMENT_CHARS) return { ok: false, error: `The share link is too long (${text.length} characters; at most ${MAX_FRAGMENT_CHARS}).` };
    const match = /^v(\d{1,6})\.(.*)$/s.exec(text);
    if (!match) return { ok: false, error: 'This is not an Effectively Once share link (it should start with "v1.").' };
    if (match[1] !== String(SHARE_LINK_VERSION)) {
      return { ok: false, error: `The share link is of format version ${match[1]}; this lab reads version ${SHARE_LINK_VERSION}.` };
    }
    const bytes = inflateCapped(fromBase64Url(match[2]!), MAX_JSON_BYTES);
    let value: unknown;
    try {
      value = JSON.parse(strFromU8(bytes));
    } catch {
      return { ok: false, error: 'The share link is damaged: its contents are not readable.' };
    }
    return { ok: true, link: validateLabLink(value) };
  } catch (error) {
    if (error instanceof ShareLinkError) return { ok: false, error: `The share link cannot be opened: ${error.message}.` };
    // fflate's own errors (invalid block type, bad distance…) and atob's: damaged data.
    return { ok: false, error: 'The share link is damaged: its data does not unpack (it may have been cut or edited).' };
  }
}
