/**
 * codeDiff / diffSummary: the lab's "What changed" view. Fixed examples from the scenarios' own
 * starters and solutions, and properties: the rows rebuild both texts exactly, the counts match
 * the rows, and folding hides only unchanged lines, never near a change.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { codeDiff, diffSummary, type DiffRow } from '../components/lab/code-diff';
import { LESSONS, lessonById } from '../simulations/lessons/index';

const text = (row: DiffRow) => (row.kind === 'same' ? row.text : row.kind === 'fold' ? '' : row.segments.map((s) => s.text).join(''));
const marked = (row: DiffRow) => (row.kind === 'added' || row.kind === 'removed' ? row.segments.filter((s) => s.changed).map((s) => s.text) : []);

function rebuild(rows: DiffRow[]) {
  return {
    before: rows.filter((r) => r.kind !== 'added' && r.kind !== 'fold').map(text),
    after: rows.filter((r) => r.kind !== 'removed' && r.kind !== 'fold').map(text),
  };
}

function variants(id: string) {
  const s = lessonById(id);
  if (!s) throw new Error(id);
  return { starter: s.variants.starter.code, solution: s.variants.solution.code };
}

describe('codeDiff', () => {
  it('finds no change between a text and itself, and the summary says so with null', () => {
    const { starter } = variants('crash-after-send');
    const d = codeDiff(starter, starter);
    expect(d.added).toBe(0);
    expect(d.removed).toBe(0);
    expect(d.rows.every((r) => r.kind === 'same')).toBe(true);
    expect(diffSummary(d)).toBeNull();
  });

  it("shows crash-after-send's fix: the send split over four lines, and only the comma marked in the moved argument", () => {
    const { starter, solution } = variants('crash-after-send');
    const d = codeDiff(starter, solution);
    expect(diffSummary(d)).toBe('4 lines added, 1 removed');
    const removed = d.rows.filter((r) => r.kind === 'removed');
    const added = d.rows.filter((r) => r.kind === 'added');
    expect(removed.map((r) => r.kind === 'removed' && r.oldLine)).toEqual([7]);
    expect(added.map((r) => r.kind === 'added' && r.newLine)).toEqual([7, 8, 9, 10]);
    expect(text(added[2])).toContain('{ idempotencyKey: key }');
    // The customer and order id are the same words on a new line: only the comma after them is new.
    expect(marked(added[1])).toEqual([',']);
    // The lines around the change keep both numbers.
    const after = d.rows.find((r) => r.kind === 'same' && r.text.includes('await complete'));
    expect(after).toMatchObject({ oldLine: 8, newLine: 11 });
  });

  it('marks the one word that changed on a line (random-key-on-retry: uuid() → key)', () => {
    const { starter, solution } = variants('random-key-on-retry');
    const d = codeDiff(starter, solution);
    const keyLine = d.rows.find((r) => r.kind === 'added' && text(r).includes('idempotencyKey: key'));
    expect(keyLine && marked(keyLine)).toEqual(['key']);
    const uuidLine = d.rows.find((r) => r.kind === 'removed' && text(r).includes('uuid()'));
    expect(uuidLine && marked(uuidLine).join('')).toContain('env.random.uuid()');
  });

  it('shows a rewritten block whole: no word marks where the lines have little in common (lease-expiry)', () => {
    const { starter, solution } = variants('lease-expiry');
    const d = codeDiff(starter, solution);
    const rewritten = d.rows.filter((r) => (r.kind === 'removed' && r.oldLine >= 5 && r.oldLine <= 14) || (r.kind === 'added' && r.newLine >= 5 && r.newLine <= 6));
    expect(rewritten).toHaveLength(12);
    expect(rewritten.flatMap(marked)).toEqual([]);
    // The import gained one name: that word alone is marked.
    expect(marked(d.rows.find((r) => r.kind === 'added' && r.newLine === 1)!)).toEqual(['claim, ']);
  });

  it('reads Windows line ends as line ends, and a missing last newline as no change', () => {
    expect(codeDiff('a\r\nb\r\n', 'a\nb').rows.map((r) => r.kind)).toEqual(['same', 'same']);
    expect(diffSummary(codeDiff('a\nb\n', 'a\nc\nd\n'))).toBe('2 lines added, 1 removed');
    expect(diffSummary(codeDiff('a\n', 'a\nb\n'))).toBe('1 line added');
    expect(diffSummary(codeDiff('a\nb\n', 'a\n'))).toBe('1 line removed');
    expect(diffSummary(codeDiff('x\n', 'y\nz\n'), { added: 'only in the solution', removed: 'only in yours' })).toBe(
      '2 lines only in the solution, 1 only in yours',
    );
  });

  it('folds long unchanged stretches to the context around each change', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const after = before.replace('line 10', 'line ten');
    const d = codeDiff(before, after, { context: 2 });
    expect(d.rows.map((r) => (r.kind === 'fold' ? `fold ${r.count} ${r.from}-${r.to}` : r.kind === 'same' ? r.newLine : r.kind))).toEqual([
      'fold 7 1-7',
      8,
      9,
      'removed',
      'added',
      11,
      12,
      'fold 8 13-20',
    ]);
    // A stretch one line longer than its context is shown, not folded: the fold row would take the same room.
    const short = codeDiff('a\nb\nc\nd', 'a\nb\nc\nD', { context: 2 });
    expect(short.rows.some((r) => r.kind === 'fold')).toBe(false);
  });

  it("every scenario's fix rebuilds both texts, with counts that match its rows", () => {
    for (const s of LESSONS) {
      const { starter, solution } = { starter: s.variants.starter.code, solution: s.variants.solution.code };
      const d = codeDiff(starter, solution);
      const { before, after } = rebuild(d.rows);
      expect(before.join('\n'), s.id).toBe(starter.replace(/\n$/, ''));
      expect(after.join('\n'), s.id).toBe(solution.replace(/\n$/, ''));
      expect(d.rows.filter((r) => r.kind === 'added')).toHaveLength(d.added);
      expect(d.rows.filter((r) => r.kind === 'removed')).toHaveLength(d.removed);
      expect(d.added + d.removed, `${s.id}: a starter and its solution differ`).toBeGreaterThan(0);
    }
  });
});

describe('codeDiff properties', () => {
  // Lines from a small alphabet, so that texts share lines and words often.
  const line = fc.array(fc.constantFrom('a', 'b', 'key', ' ', '(', ')', ',', 'x y'), { maxLength: 5 }).map((w) => w.join(''));
  const lines = fc.array(line, { maxLength: 12 });

  it('the rows rebuild both texts line for line', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const d = codeDiff(a.join('\n'), b.join('\n'));
        const { before, after } = rebuild(d.rows);
        // A newline at the very end ends the last line; it does not start another.
        const text = (ls: string[]) => ls.join('\n').replace(/\n$/, '');
        expect(before.join('\n')).toBe(text(a));
        expect(after.join('\n')).toBe(text(b));
        expect(d.rows.filter((r) => r.kind === 'added')).toHaveLength(d.added);
        expect(d.rows.filter((r) => r.kind === 'removed')).toHaveLength(d.removed);
      }),
    );
  });

  it('folding leaves every change and its context in place and hides only unchanged lines', () => {
    fc.assert(
      fc.property(lines, lines, fc.integer({ min: 0, max: 3 }), (a, b, context) => {
        const full = codeDiff(a.join('\n'), b.join('\n'));
        const folded = codeDiff(a.join('\n'), b.join('\n'), { context });
        const changes = (rows: DiffRow[]) => rows.filter((r) => r.kind === 'added' || r.kind === 'removed');
        expect(changes(folded.rows)).toEqual(changes(full.rows));
        const hidden = folded.rows.reduce((n, r) => n + (r.kind === 'fold' ? r.count : 0), 0);
        const shownSame = folded.rows.filter((r) => r.kind === 'same').length;
        expect(hidden + shownSame).toBe(full.rows.filter((r) => r.kind === 'same').length);
        // No fold sits right next to a change with less than `context` unchanged lines between.
        folded.rows.forEach((r, i) => {
          if (r.kind !== 'fold') return;
          for (let k = 1; k <= context; k++) {
            for (const j of [i - k, i + k]) {
              if (j >= 0 && j < folded.rows.length) expect(['same', 'fold']).toContain(folded.rows[j].kind);
            }
          }
          expect(r.count).toBeGreaterThan(1);
        });
      }),
    );
  });
});
