/** Which editor a learner gets (components/editor/editor-kind.ts) and the plain editor's line arithmetic. */
import { describe, expect, it } from 'vitest';
import { editorKindFrom, isTouchFirst } from '../components/editor/editor-kind';
import { lineStart } from '../components/editor/PlainCodeEditor';

const device = (matches: Record<string, boolean>) => (query: string) => ({ matches: matches[query] ?? false });

describe('the editor a learner gets', () => {
  it('a device whose pointers are all coarse is touch-first; one with a mouse, pen or trackpad as well is not', () => {
    expect(isTouchFirst(device({ '(pointer: coarse)': true, '(any-pointer: fine)': false }))).toBe(true);
    // A touch laptop: touch screen first, a trackpad too.
    expect(isTouchFirst(device({ '(pointer: coarse)': true, '(any-pointer: fine)': true }))).toBe(false);
    expect(isTouchFirst(device({ '(pointer: fine)': true, '(any-pointer: fine)': true }))).toBe(false);
    expect(isTouchFirst(undefined)).toBe(false);
  });

  it("the learner's choice wins; without one, touch-first devices get the plain editor", () => {
    expect(editorKindFrom(null, true)).toBe('plain');
    expect(editorKindFrom(null, false)).toBe('full');
    expect(editorKindFrom('full', true)).toBe('full');
    expect(editorKindFrom('plain', false)).toBe('plain');
    expect(editorKindFrom('monaco', true)).toBe('plain');
  });
});

describe('the plain editor', () => {
  it('finds where a line starts, the end of the text for a line past the last', () => {
    const text = 'one\ntwo\n\nfour';
    expect(lineStart(text, 1)).toBe(0);
    expect(lineStart(text, 2)).toBe(4);
    expect(lineStart(text, 3)).toBe(8);
    expect(lineStart(text, 4)).toBe(9);
    expect(text.slice(lineStart(text, 4))).toBe('four');
    expect(lineStart(text, 9)).toBe(text.length);
  });
});
