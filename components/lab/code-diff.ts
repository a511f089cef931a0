/**
 * The line diff behind "What changed" — the starter beside the solution, or beside the learner's
 * own code — built on jsdiff (`diff`). Pure: rows with line numbers, changed words inside a line
 * that was edited rather than replaced, long unchanged stretches folded to a few lines of context,
 * and the sentence that sums it up.
 */
import { diffLines, diffWordsWithSpace } from 'diff';

/** A piece of a changed line; `changed` marks the words that differ from the paired line. */
export interface Segment {
  text: string;
  changed: boolean;
}

export type DiffRow =
  | { kind: 'same'; oldLine: number; newLine: number; text: string }
  | { kind: 'removed'; oldLine: number; segments: Segment[] }
  | { kind: 'added'; newLine: number; segments: Segment[] }
  /** Unchanged lines left out; `from`/`to` are their line numbers in the newer text. */
  | { kind: 'fold'; count: number; from: number; to: number };

export interface CodeDiff {
  rows: DiffRow[];
  added: number;
  removed: number;
}

export interface DiffOptions {
  /** Unchanged lines kept on each side of a change; longer stretches fold. Default: keep them all. */
  context?: number;
}

function splitLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Below this share of characters in common (spaces aside), word marks inside an edit are noise: the lines are shown whole. */
const ALIKE = 0.4;

/**
 * An edit — removed lines followed by the lines that replaced them — marked word by word (jsdiff's
 * word diff over the two blocks), so a line split in two or an argument added shows just what is
 * new. When the blocks share less than ALIKE of their characters the marks would be noise, and
 * every line is shown whole; so is a line that is changed from end to end.
 */
function markEdit(before: string[], after: string[]): { removed: Segment[][]; added: Segment[][] } {
  const whole = (lines: string[]) => lines.map((text) => [{ text, changed: false }]);
  const a = before.join('\n');
  const b = after.join('\n');
  const words = diffWordsWithSpace(a, b);
  let shared = 0;
  for (const w of words) if (!w.added && !w.removed) shared += w.value.replace(/\s/g, '').length * 2;
  const total = a.replace(/\s/g, '').length + b.replace(/\s/g, '').length;
  if (total === 0 || shared / total < ALIKE) return { removed: whole(before), added: whole(after) };
  const removed: Segment[][] = [[]];
  const added: Segment[][] = [[]];
  const put = (side: Segment[][], value: string, changed: boolean) => {
    value.split('\n').forEach((piece, k) => {
      if (k > 0) side.push([]);
      if (piece) side[side.length - 1].push({ text: piece, changed });
    });
  };
  for (const w of words) {
    if (!w.added) put(removed, w.value, !!w.removed);
    if (!w.removed) put(added, w.value, !!w.added);
  }
  const tidy = (side: Segment[][]) =>
    side.map((segments) => {
      const real = segments.filter((x) => x.text.trim() !== '');
      if (real.length > 0 && real.every((x) => x.changed)) return [{ text: segments.map((x) => x.text).join(''), changed: false }];
      // Changed spaces on their own mark nothing a reader can see.
      return segments.map((x) => (x.changed && x.text.trim() === '' ? { ...x, changed: false } : x));
    });
  return { removed: tidy(removed), added: tidy(added) };
}

export function codeDiff(before: string, after: string, options: DiffOptions = {}): CodeDiff {
  const context = options.context ?? Infinity;
  const parts = diffLines(splitLines(before).join('\n') + '\n', splitLines(after).join('\n') + '\n');
  const rows: DiffRow[] = [];
  let oldLine = 1;
  let newLine = 1;
  let added = 0;
  let removed = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const lines = splitLines(part.value);
    if (part.removed) {
      // A removed run followed by an added run is an edit: marked word by word where that says something.
      const next = parts[i + 1];
      const replacement = next?.added ? splitLines(next.value) : [];
      const marks = markEdit(lines, replacement);
      lines.forEach((_, k) => rows.push({ kind: 'removed', oldLine: oldLine + k, segments: marks.removed[k] }));
      replacement.forEach((_, k) => rows.push({ kind: 'added', newLine: newLine + k, segments: marks.added[k] }));
      removed += lines.length;
      added += replacement.length;
      oldLine += lines.length;
      newLine += replacement.length;
      if (next?.added) i++;
    } else if (part.added) {
      lines.forEach((line, k) => rows.push({ kind: 'added', newLine: newLine + k, segments: [{ text: line, changed: false }] }));
      added += lines.length;
      newLine += lines.length;
    } else {
      lines.forEach((line, k) => rows.push({ kind: 'same', oldLine: oldLine + k, newLine: newLine + k, text: line }));
      oldLine += lines.length;
      newLine += lines.length;
    }
  }
  return { rows: fold(rows, context), added, removed };
}

/** Folds each unchanged stretch longer than the context on both sides into one row. */
function fold(rows: DiffRow[], context: number): DiffRow[] {
  if (!Number.isFinite(context)) return rows;
  const out: DiffRow[] = [];
  let i = 0;
  while (i < rows.length) {
    if (rows[i].kind !== 'same') {
      out.push(rows[i++]);
      continue;
    }
    let j = i;
    while (j < rows.length && rows[j].kind === 'same') j++;
    const keepBefore = i === 0 ? 0 : context; // after a change
    const keepAfter = j === rows.length ? 0 : context; // before a change
    const hidden = j - i - keepBefore - keepAfter;
    // Folding one line saves nothing: its fold row takes the same room.
    if (hidden <= 1) {
      for (let k = i; k < j; k++) out.push(rows[k]);
    } else {
      for (let k = i; k < i + keepBefore; k++) out.push(rows[k]);
      const first = rows[i + keepBefore] as Extract<DiffRow, { kind: 'same' }>;
      const last = rows[j - keepAfter - 1] as Extract<DiffRow, { kind: 'same' }>;
      out.push({ kind: 'fold', count: hidden, from: first.newLine, to: last.newLine });
      for (let k = j - keepAfter; k < j; k++) out.push(rows[k]);
    }
    i = j;
  }
  return out;
}

function lines(n: number): string {
  return n === 1 ? '1 line' : `${n} lines`;
}

export interface DiffWording {
  added: string;
  removed: string;
}

/**
 * "2 lines added, 1 removed" — or, with other words, "2 lines only in the solution, 1 only in
 * yours"; null when the two texts are the same line for line.
 */
export function diffSummary(diff: Pick<CodeDiff, 'added' | 'removed'>, wording: DiffWording = { added: 'added', removed: 'removed' }): string | null {
  const { added, removed } = diff;
  if (added === 0 && removed === 0) return null;
  if (removed === 0) return `${lines(added)} ${wording.added}`;
  if (added === 0) return `${lines(removed)} ${wording.removed}`;
  return `${lines(added)} ${wording.added}, ${removed} ${wording.removed}`;
}
