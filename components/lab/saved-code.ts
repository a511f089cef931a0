/**
 * The learner's saved code, one localStorage entry per lesson (`eo:code:<lesson>`), read and
 * written only here. What is stored is validated, never trusted: a value is offered to the editor
 * only as text, and text larger than an editor should take without asking (`LARGE_CODE_CHARS` or
 * `LARGE_CODE_LINES`) is reported as large, with its size, so the lab asks before loading it.
 * Every storage call tolerates disabled or full storage.
 */
import * as v from 'valibot';

export const storageKey = (scenarioId: string) => `eo:code:${scenarioId}`;

/**
 * Above either limit, saved code is offered rather than loaded. Every lesson's code is a few
 * hundred lines; Monaco, the diff against the starter and the typings slow down long before a
 * stored entry reaches the browser's quota (100,000 lines froze the page for half a minute).
 */
export const LARGE_CODE_CHARS = 100_000;
export const LARGE_CODE_LINES = 3_000;

/** Saved code: text, as much as a browser will store (a progress file caps its own entries). */
export const savedCodeSchema = v.string();

/** How big a text is, for the offer: UTF-8 bytes and lines. */
export interface CodeSize {
  bytes: number;
  lines: number;
}

export function codeSize(text: string): CodeSize {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return { bytes: new TextEncoder().encode(text).length, lines };
}

/** Whether `text` is more than the editor should be handed without asking. */
export function isLargeCode(text: string): boolean {
  if (text.length > LARGE_CODE_CHARS) return true;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && lines <= LARGE_CODE_LINES; i = text.indexOf('\n', i + 1)) lines++;
  return lines > LARGE_CODE_LINES;
}

/** "2.3 MB", "740 KB", "512 bytes": what the learner reads about a size. */
export function formatBytes(bytes: number): string {
  if (bytes < 1_000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1_000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** The code saved for a lesson, or null (none saved, storage unavailable, or not text). */
export function readSavedCode(scenarioId: string): string | null {
  let raw: unknown;
  try {
    raw = window.localStorage.getItem(storageKey(scenarioId));
  } catch {
    return null;
  }
  return v.is(savedCodeSchema, raw) ? raw : null;
}

/** Save (or, with null, forget) a lesson's code. False when storage refused it (full or disabled). */
export function writeSavedCode(scenarioId: string, text: string | null): boolean {
  try {
    if (text === null) window.localStorage.removeItem(storageKey(scenarioId));
    else window.localStorage.setItem(storageKey(scenarioId), text);
    return true;
  } catch {
    return false;
  }
}

/** Every lesson's saved code among `ids`, by lesson id (lessons with none are absent). */
export function readAllSavedCode(ids: readonly string[]): Record<string, string> {
  const entries: [string, string][] = [];
  for (const id of ids) {
    const text = readSavedCode(id);
    if (text !== null) entries.push([id, text]);
  }
  return Object.fromEntries(entries);
}
