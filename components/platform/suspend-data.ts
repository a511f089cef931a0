/**
 * A unit's state in a course platform's resume slot (`cmi.suspend_data`): the lesson's progress
 * record, its questions' answers, the sorting exercise where the lesson has it, and the learner's
 * code — as JSON, deflated (fflate) and written in base64url, which every platform stores as-is.
 *
 * SCORM 1.2 keeps at most 4,096 characters (SCORM 2004: 64,000). When the whole state does not
 * fit, `packSuspendData` drops, in this order, and says what it dropped:
 *   1. `history`: all but the newest digest of the code that held and of the code explored clean
 *      (the lesson's passed/explored flags stay, so a done lesson stays done);
 *   2. `code`: the learner's code (the lab then opens with the starter; what the platform recorded
 *      is unaffected);
 * and returns an empty string only if even the progress alone would not fit (it is a few hundred
 * characters). `unpackSuspendData` returns null for anything it did not write.
 */
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import type { QuizRecord, ScenarioProgress } from '@/components/course/progress';

/** SCORM 1.2's limit for cmi.suspend_data (CMIString4096). */
export const SCORM12_SUSPEND_LIMIT = 4096;
/** SCORM 2004's smallest permitted maximum for cmi.suspend_data. */
export const SCORM2004_SUSPEND_LIMIT = 64_000;

const PREFIX = 'eo1.';
/** The most an unpacked state may inflate to: a lab's code is at most 16,000 characters. */
const MAX_INFLATED_BYTES = 256 * 1024;

/** What resuming a unit needs. */
export interface UnitSnapshot {
  /** The lesson's id, or `check` for the general questions. */
  unit: string;
  /** The lesson's progress record (absent for the general questions or a lesson not yet visited). */
  scenario?: ScenarioProgress;
  /** The last checked answer of each of the unit's questions that has one. */
  quizzes: Record<string, QuizRecord>;
  /** The replay-safety sorting exercise, on that lesson only. */
  sorting?: { choices: Record<string, string>; correct: number; total: number };
  /** The learner's code ("Your code"); absent: the starter. */
  code?: string;
}

export type Dropped = 'history' | 'code';

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function encode(snapshot: UnitSnapshot): string {
  return PREFIX + toBase64Url(deflateSync(strToU8(JSON.stringify(snapshot)), { level: 9 }));
}

function withoutHistory(s: UnitSnapshot): UnitSnapshot {
  if (!s.scenario) return s;
  const { heldCode, cleanCode, ...rest } = s.scenario;
  return {
    ...s,
    scenario: { ...rest, ...(heldCode?.length ? { heldCode: heldCode.slice(-1) } : {}), ...(cleanCode?.length ? { cleanCode: cleanCode.slice(-1) } : {}) },
  };
}

/** The snapshot as suspend data of at most `limit` characters, and what had to be left out. */
export function packSuspendData(snapshot: UnitSnapshot, limit: number): { text: string; dropped: Dropped[] } {
  let text = encode(snapshot);
  if (text.length <= limit) return { text, dropped: [] };
  const trimmed = withoutHistory(snapshot);
  text = encode(trimmed);
  if (text.length <= limit) return { text, dropped: ['history'] };
  const { code: _code, ...noCode } = trimmed;
  text = encode(noCode);
  return text.length <= limit ? { text, dropped: ['history', 'code'] } : { text: '', dropped: ['history', 'code'] };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The snapshot in `text` when it is suspend data this site wrote for `unit`; null otherwise. */
export function unpackSuspendData(text: string, unit: string): UnitSnapshot | null {
  if (!text.startsWith(PREFIX)) return null;
  try {
    const bytes = fromBase64Url(text.slice(PREFIX.length));
    const inflated = inflateSync(bytes);
    if (inflated.length > MAX_INFLATED_BYTES) return null;
    const value: unknown = JSON.parse(strFromU8(inflated));
    if (!isRecord(value) || value.unit !== unit || !isRecord(value.quizzes)) return null;
    if (value.scenario !== undefined && !isRecord(value.scenario)) return null;
    if (value.code !== undefined && typeof value.code !== 'string') return null;
    if (value.sorting !== undefined && !isRecord(value.sorting)) return null;
    const quizzes: Record<string, QuizRecord> = {};
    for (const [id, record] of Object.entries(value.quizzes)) {
      if (isRecord(record) && typeof record.choice === 'string' && typeof record.correct === 'boolean') {
        quizzes[id] = { choice: record.choice, correct: record.correct, ...(record.revealed === true ? { revealed: true } : {}) };
      }
    }
    return {
      unit,
      quizzes,
      ...(value.scenario ? { scenario: value.scenario as ScenarioProgress } : {}),
      ...(value.sorting ? { sorting: value.sorting as UnitSnapshot['sorting'] } : {}),
      ...(typeof value.code === 'string' ? { code: value.code } : {}),
    };
  } catch {
    return null;
  }
}
