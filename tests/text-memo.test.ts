import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoByText } from '../simulations/engine/text-memo';

describe('memoByText', () => {
  it('works a text out once, and gives what the function gives', () => {
    const seen: string[] = [];
    const length = memoByText((text) => {
      seen.push(text);
      return text.length;
    });
    expect([length('SELECT 1'), length('BEGIN'), length('SELECT 1'), length('BEGIN')]).toEqual([8, 5, 8, 5]);
    expect(seen).toEqual(['SELECT 1', 'BEGIN']);
  });

  it('remembers an undefined answer too', () => {
    let calls = 0;
    const nothing = memoByText(() => {
      calls++;
      return undefined;
    });
    nothing('x');
    nothing('x');
    expect(calls).toBe(1);
  });

  it('holds at most `limit` texts, and its answers never change with what it remembers', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 3 }), { maxLength: 200 }), fc.integer({ min: 1, max: 8 }), (texts, limit) => {
        let calls = 0;
        const upper = memoByText((text) => {
          calls++;
          return text.toUpperCase();
        }, limit);
        for (const t of texts) expect(upper(t)).toBe(t.toUpperCase());
        // Never more work than one call per text, never less than one per distinct text.
        expect(calls).toBeLessThanOrEqual(texts.length);
        expect(calls).toBeGreaterThanOrEqual(new Set(texts).size);
        // Within the limit nothing is ever computed twice.
        if (new Set(texts).size <= limit) expect(calls).toBe(new Set(texts).size);
      }),
    );
  });
});
